import Foundation
import MirrorArchive
import MirrorBundle
import MirrorCache
import MirrorCrawlTesting
import MirrorSite
import MirrorTestSupport
import Testing

/// Crawl → pack → unpack / import, on a real crawl of the fixture site with every kind of link
/// (so rewritten pages, kept originals, a 301 and a 302 are all in the bundle).
@Suite("Bundle round trips", .serialized)
final class BundleRoundTripTests {
    /// A harness for each test (Swift Testing makes a new instance per test); `deinit` removes its folder.
    let harness = CrawlHarness()
    var root: String { harness.root }

    deinit {
        harness.remove()
    }

    /// Crawls the `links` fixture into `out` and packs it; returns the bundle's path.
    func crawlAndPack(_ origin: TestOrigin) async throws -> String {
        let report = try await harness.crawl([origin.url("/")])
        #expect(report.failures.isEmpty)
        let bundle = root + "/site.tar.gz"
        try BundlePacker().pack(folder: root + "/out", to: bundle)
        return bundle
    }

    @Test func packThenUnpackGivesTheSameTreeByteForByte() async throws {
        try await TestOrigin.with(site: .named("links")) { origin in
            let bundle = try await crawlAndPack(origin)
            let summary = try BundleUnpacker().unpack(bundle, to: root + "/unpacked")
            let manifest = try harness.manifest()
            #expect(summary.manifest == manifest)
            #expect(manifest.resources.values.contains { $0.file != nil }, "no page was rewritten: the test proves nothing")
            let packed = FolderContents.mirror(root + "/out")
            let unpacked = FolderContents.mirror(root + "/unpacked")
            #expect(packed.keys.sorted() == unpacked.keys.sorted())
            for (path, bytes) in packed { #expect(unpacked[path] == bytes, "\(path) differs") }
            #expect(Set(packed.keys) == Set(manifest.files.keys).union([".mirror/manifest.json"]))
        }
    }

    @Test func packingIsReproducible() async throws {
        try await TestOrigin.with(site: .named("links")) { origin in
            let bundle = try await crawlAndPack(origin)
            let again = try BundlePacker().pack(folder: root + "/out", to: root + "/again.tar.gz")
            try BundleUnpacker().unpack(bundle, to: root + "/unpacked")
            var serial = BundlePacker.Options()
            serial.parallelism = 1
            let repacked = try BundlePacker(options: serial).pack(folder: root + "/unpacked", to: root + "/repacked.tar.gz")
            let first = try Data(contentsOf: URL(fileURLWithPath: bundle))
            #expect(try Data(contentsOf: URL(fileURLWithPath: root + "/again.tar.gz")) == first)
            #expect(try Data(contentsOf: URL(fileURLWithPath: root + "/repacked.tar.gz")) == first)
            #expect(again.sha256 == repacked.sha256)
        }
    }

    @Test func gnuTarReadsOurBundles() async throws {
        try await TestOrigin.with(site: .named("links")) { origin in
            let bundle = try await crawlAndPack(origin)
            let listing = try await ChildProcess.output("/usr/bin/tar", ["-tzf", bundle])
            #expect(listing.split(separator: "\n").prefix(2) == [".mirror/", ".mirror/manifest.json"])
            try FileManager.default.createDirectory(atPath: root + "/gnu", withIntermediateDirectories: true)
            _ = try await ChildProcess.output("/usr/bin/tar", ["-xzf", bundle, "-C", root + "/gnu"])
            #expect(FolderContents.mirror(root + "/gnu") == FolderContents.mirror(root + "/out"))
        }
    }

    @Test func weReadBundlesMadeByGnuTar() async throws {
        try await TestOrigin.with(site: .named("links")) { origin in
            _ = try await harness.crawl([origin.url("/")])
            for format in ["gnu", "pax"] {
                let bundle = "\(root)/\(format).tar.gz"
                _ = try await ChildProcess.output(
                    "/usr/bin/tar",
                    [
                        "--format=\(format)", "--exclude=./.mirror/journal.*", "--exclude=./.mirror/tmp",
                        "-czf", bundle, "-C", root + "/out", ".",
                    ])
                let summary = try BundleUnpacker().check(bundle)
                #expect(summary.manifest == (try harness.manifest()))
                try BundleUnpacker().unpack(bundle, to: "\(root)/from-\(format)")
                #expect(FolderContents.mirror("\(root)/from-\(format)") == FolderContents.mirror(root + "/out"))
            }
        }
    }

    /// The promise of a bundle: a cache reloaded from it rebuilds the same folder with no network.
    @Test func aCacheReloadedFromABundleRebuildsTheFolderOffline() async throws {
        try await TestOrigin.with(site: .named("links")) { origin in
            let bundle = try await crawlAndPack(origin)
            try await CrawlHarness.with { offline in
                let imported = try BundleImporter(store: try CacheStore(directory: offline.cache)).importBundle(bundle)
                let manifest = try harness.manifest()
                #expect(imported == manifest.resources.count + manifest.redirects.count)
                #expect(manifest.redirects.values.contains { $0.status == 302 })
                origin.clearLog()
                let report = try await offline.crawl([origin.url("/")], mode: .offline)
                #expect(origin.requests.isEmpty, "the origin was asked for \(origin.requests.map(\.uri))")
                #expect(report.failures.isEmpty)
                #expect(try offline.manifest() == manifest)
                #expect(
                    FolderContents.mirror(offline.root + "/out")
                        == FolderContents.mirror(root + "/out"))
            }
        }
    }
}
