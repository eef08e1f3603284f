import MirrorServe
import MirrorSite
import Testing

/// What `/` opens: the first seed when the seeds are on one host, a page of links when they
/// are on several.
@Suite("The start page of a served mirror")
struct StartPageRouteTests {
    private static func manifest(seeds: [String]) -> SiteManifest {
        var manifest = SiteManifest()
        manifest.seeds = seeds
        for (index, seed) in seeds.enumerated() {
            let host = seed.split(separator: "/")[1]
            manifest.resources[seed] = SiteManifest.Resource(
                path: "\(host)/index\(index).html", status: 200, contentType: "text/html", size: 1,
                sha256: String(repeating: "0", count: 64), etag: nil, lastModified: nil,
                record: ResponseRecord(headers: [:], requestTime: 0, responseTime: 0, varyKey: ""))
        }
        return manifest
    }

    @Test func seedsOnOneHostOpenTheFirstSeed() {
        let routes = SiteRoutes(manifest: Self.manifest(seeds: ["http://a.test/", "http://a.test/more"]))
        #expect(
            routes.resolve(target: "/", host: nil)
                == .file(
                    path: "a.test/index0.html",
                    resource: Self.manifest(seeds: ["http://a.test/"]).resources["http://a.test/"]!))
    }

    @Test func seedsOnSeveralHostsOpenAPageLinkingEach() {
        let seeds = ["http://a.test/", "http://b.test/docs"]
        let routes = SiteRoutes(manifest: Self.manifest(seeds: seeds))
        #expect(routes.resolve(target: "/", host: nil) == .startPage(seeds: seeds))
        #expect(routes.resolve(target: "/", host: "b.test") != .startPage(seeds: seeds), "a request for one host gets that host's /")
        #expect(routes.resolve(target: "/?q=1", host: nil) != .startPage(seeds: seeds))
    }
}
