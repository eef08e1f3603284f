import Foundation
import MirrorTestSupport
import Testing

/// `mirror crawl --bundle`, `pack`, `unpack` and `cache import`, run as a user would.
@Suite("mirror pack, unpack and cache import")
final class BundleCommandTests {
    /// A folder for each test (Swift Testing makes a new instance per test); `deinit` removes it.
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("cli-bundle-\(UUID().uuidString)").path

    deinit {
        try? FileManager.default.removeItem(atPath: root)
    }

    @Test func aBundleCarriesASiteToAnotherCacheAndBackOffline() async throws {
        try await TestOrigin.with(site: .named("plain")) { origin in
            let bundle = root + "/site.tar.gz"
            let crawl = try await MirrorProcess.run([
                "crawl", origin.url("/"), "-o", root + "/out", "--cache", root + "/cache",
                "--bundle", bundle,
            ])
            #expect(crawl.status == 0, "\(crawl.stderr)")
            #expect(crawl.stdout.contains("sha256"))
            let check = try await MirrorProcess.run(["unpack", "--check", bundle])
            #expect(check.status == 0, "\(check.stderr)")
            // 9 responses in 8 files (`/` and `/index.html` share one), index.html, 4 originals of rewritten files,
            // the search index
            #expect(check.stdout.contains("ok, 14 files"))
            let unpack = try await MirrorProcess.run(["unpack", bundle, "-o", root + "/copy", "--into-cache", root + "/second"])
            #expect(unpack.status == 0, "\(unpack.stderr)")
            #expect(FileManager.default.fileExists(atPath: root + "/copy/index.html"))
            let imported = try await MirrorProcess.run(["cache", "import", bundle, "--cache", root + "/third", "--json"])
            #expect(imported.status == 0, "\(imported.stderr)")
            #expect(imported.stdout.contains("\"imported\" : 9"))
            origin.clearLog()
            for cache in ["second", "third"] {
                let offline = try await MirrorProcess.run([
                    "crawl", origin.url("/"), "--offline", "--cache", root + "/" + cache,
                    "-o", root + "/offline-" + cache,
                ])
                #expect(offline.status == 0, "\(offline.stderr)")
            }
            #expect(origin.requests.isEmpty)
            let pack = try await MirrorProcess.run(["pack", root + "/offline-third", "-o", root + "/again.tar.gz", "--json"])
            #expect(pack.status == 0, "\(pack.stderr)")
            let first = try await MirrorProcess.run(["pack", root + "/out", "-o", root + "/first.tar.gz", "--json"])
            let digest = { (text: String) in
                (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])?["sha256"] as? String
            }
            #expect(digest(pack.stdout) != nil && digest(pack.stdout) == digest(first.stdout), "the offline rebuild packs differently")
        }
    }

    @Test func refusalsHaveTheirExitCodes() async throws {
        try FileManager.default.createDirectory(atPath: root + "/plain", withIntermediateDirectories: true)
        let notAMirror = try await MirrorProcess.run(["pack", root + "/plain", "-o", root + "/x.tar.gz"])
        #expect(notAMirror.status == 2)
        #expect(notAMirror.stderr.contains("not a mirror folder"))
        try Data("not gzip".utf8).write(to: URL(fileURLWithPath: root + "/bad.tar.gz"))
        let corrupt = try await MirrorProcess.run(["unpack", root + "/bad.tar.gz", "-o", root + "/bad"])
        #expect(corrupt.status == 10)
        #expect(!FileManager.default.fileExists(atPath: root + "/bad"))
        let importCorrupt = try await MirrorProcess.run(["cache", "import", root + "/bad.tar.gz", "--cache", root + "/cache"])
        #expect(importCorrupt.status == 10)
        let missing = try await MirrorProcess.run(["unpack", root + "/none.tar.gz", "-o", root + "/none"])
        #expect(missing.status == 3)
        let noDestination = try await MirrorProcess.run(["unpack", root + "/bad.tar.gz"])
        #expect(noDestination.status == 2)
    }
}
