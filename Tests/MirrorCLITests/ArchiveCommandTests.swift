import Foundation
import MirrorTestSupport
import Testing

/// `mirror export` and `mirror cache import` of WARC and WACZ files, run as a user would.
@Suite("mirror export and cache import of web archives")
struct ArchiveCommandTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("cli-archive-\(UUID().uuidString)").path

    static func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
    }

    @Test func aCrawlTravelsAsWARCAndWACZToAnotherCacheAndBackOffline() async throws {
        try await TestOrigin.with(site: .named("plain")) { origin in
            defer { try? FileManager.default.removeItem(atPath: root) }
            let crawl = try await MirrorProcess.run(["crawl", origin.url("/"), "-o", root + "/out", "--cache", root + "/cache"])
            #expect(crawl.status == 0, "\(crawl.stderr)")
            let warc = try await MirrorProcess.run(["export", "--warc", root + "/site.warc.gz", "--cache", root + "/cache", "--json"])
            #expect(warc.status == 0, "\(warc.stderr)")
            let exported = Self.json(warc.stdout)
            let responses = (exported["responses"] as? Int ?? 0) + (exported["revisits"] as? Int ?? 0)
            #expect(responses >= 9 && (exported["sha256"] as? String)?.count == 64, "\(warc.stdout)")
            let wacz = try await MirrorProcess.run(["export", "--wacz", root + "/site.wacz", "--from", root + "/out"])
            #expect(wacz.status == 0, "\(wacz.stderr)")
            #expect(wacz.stdout.contains("pages to \(root)/site.wacz"), "\(wacz.stdout)")
            for (file, cache) in [("site.warc.gz", "from-warc"), ("site.wacz", "from-wacz")] {
                let imported = try await MirrorProcess.run(["cache", "import", root + "/" + file, "--cache", root + "/" + cache, "--json"])
                #expect(imported.status == 0, "\(imported.stderr)")
                #expect(Self.json(imported.stdout)["imported"] as? Int ?? 0 >= 9, "\(imported.stdout)")
            }
            origin.clearLog()
            for cache in ["from-warc", "from-wacz"] {
                let offline = try await MirrorProcess.run([
                    "crawl", origin.url("/"), "--offline", "--cache", root + "/" + cache,
                    "-o", root + "/offline-" + cache,
                ])
                #expect(offline.status == 0, "\(offline.stderr)")
                let excluded = [".mirror/manifest.json", ".mirror/journal", ".mirror/tmp", ".mirror/search.checked"]
                #expect(
                    FolderContents.files(root + "/offline-" + cache, excluding: excluded)
                        == FolderContents.files(root + "/out", excluding: excluded), "\(cache)")
            }
            #expect(origin.requests.isEmpty)
        }
    }

    @Test func damagedArchivesAndWrongUsesHaveTheirExitCodes() async throws {
        try await TestOrigin.with(site: .named("plain")) { origin in
            defer { try? FileManager.default.removeItem(atPath: root) }
            _ = try await MirrorProcess.run(["crawl", origin.url("/"), "-o", root + "/out", "--cache", root + "/cache"])
            let warc = root + "/site.warc.gz"
            _ = try await MirrorProcess.run(["export", "--warc", warc, "--cache", root + "/cache"])
            var bytes = try Data(contentsOf: URL(fileURLWithPath: warc))
            bytes.removeLast(bytes.count / 3)
            try bytes.write(to: URL(fileURLWithPath: root + "/cut.warc.gz"))
            let cut = try await MirrorProcess.run(["cache", "import", root + "/cut.warc.gz", "--cache", root + "/cut-cache"])
            #expect(cut.status == 10)
            #expect(cut.stderr.contains("truncated: it ends inside the record at offset"), "\(cut.stderr)")
            #expect(cut.stdout.contains("imported "), "what came before the damage is imported and said")
            let listed = try await MirrorProcess.run(["cache", "ls", "--cache", root + "/cut-cache", "--json"])
            #expect(!((try? JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [Any]) ?? []).isEmpty)

            let neither = try await MirrorProcess.run(["export", "--cache", root + "/cache"])
            #expect(neither.status == 2)
            let both = try await MirrorProcess.run(["export", "--warc", root + "/a.warc.gz", "--wacz", root + "/a.wacz"])
            #expect(both.status == 2)
            try FileManager.default.createDirectory(atPath: root + "/plain", withIntermediateDirectories: true)
            let notMirror = try await MirrorProcess.run(["export", "--wacz", root + "/b.wacz", "--from", root + "/plain"])
            #expect(notMirror.status == 2)
            #expect(notMirror.stderr.contains("not a mirror folder"))
            #expect(!FileManager.default.fileExists(atPath: root + "/b.wacz"))
            let badSince = try await MirrorProcess.run(["export", "--warc", root + "/c.warc.gz", "--since", "last tuesday"])
            #expect(badSince.status == 2)
        }
    }
}
