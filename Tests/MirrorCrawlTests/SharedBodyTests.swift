import Foundation
import MirrorCrawlTesting
import MirrorSite
import MirrorTestSupport
import Testing

/// A crawl saves each stored response as a hard link to the cache's body: one file on disk for
/// both, which outlives the cache.
@Suite("Files shared with the cache")
final class SharedBodyTests {
    /// A harness for each test (Swift Testing makes a new instance per test); `deinit` removes its folder.
    let harness = CrawlHarness()

    deinit {
        harness.remove()
    }

    func inode(_ path: String) throws -> UInt64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require(attributes[.systemFileNumber] as? UInt64)
    }

    func cacheBody(_ sha256: String) -> String { "\(harness.cache)/bodies/\(sha256.prefix(2))/\(sha256)" }

    @Test func aSavedFileIsTheCachesBodyAndOutlivesTheCache() async throws {
        try await TestOrigin.with(site: .named("plain")) { origin in
            _ = try await harness.crawl([origin.url("/")])
            let manifest = try harness.manifest()
            let folder = harness.root + "/out/"
            let logo = try #require(manifest.resources[origin.url("/img/logo.png")])
            #expect(try inode(folder + logo.path) == inode(cacheBody(logo.sha256)), "the image was copied")
            let about = try #require(manifest.resources[origin.url("/about.html")])
            #expect(about.file != nil, "the page's links were rewritten")
            let original = folder + SiteManifest.originalPath(sha256: about.sha256)
            #expect(try inode(original) == inode(cacheBody(about.sha256)), "the page's original is not the cache's body")
            #expect(try inode(folder + about.path) != inode(original), "the rewritten page replaced its original in place")

            let saved = FolderContents.mirror(harness.root + "/out")
            try FileManager.default.removeItem(atPath: harness.cache)
            #expect(FolderContents.mirror(harness.root + "/out") == saved)
            let served = try Data(contentsOf: FixtureSite.named("plain").root.appendingPathComponent("img/logo.png"))
            #expect(saved[logo.path] == served)
        }
    }
}
