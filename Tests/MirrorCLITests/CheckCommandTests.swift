import Foundation
import MirrorTestSupport
import Testing

/// `mirror check`, run as a user would.
@Suite("mirror check")
struct CheckCommandTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("cli-check-\(UUID().uuidString)").path

    @Test func aCrawledFolderIsCleanAndABrokenLinkExitsTwelve() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await TestOrigin.with(site: .named("plain")) { origin in
            let crawl = try await MirrorProcess.run(["crawl", origin.url("/"), "-o", root + "/out", "--cache", root + "/cache", "--quiet"])
            #expect(crawl.status == 0, "\(crawl.stderr)")
            let clean = try await MirrorProcess.run(["check", root + "/out", "--origin", origin.baseURL])
            #expect(clean.status == 0, "\(clean.stdout)\(clean.stderr)")
            #expect(clean.stdout.contains(" 0 broken, 0 unconverted"))

            let page = root + "/out/added.html"
            try Data(#"<a href="/about.html">a</a><a href="index.html">i</a><a href="gone.html">g</a>"#.utf8).write(
                to: URL(fileURLWithPath: page))
            let broken = try await MirrorProcess.run(["check", root + "/out"])
            #expect(broken.status == 12)
            #expect(broken.stdout.contains("broken: added.html -> /about.html (root-relative"))
            #expect(broken.stdout.contains("broken: added.html -> gone.html (no such file)"))
            #expect(broken.stderr.contains("has 2 broken links"))

            let json = try await MirrorProcess.run(["check", root + "/out", "--json", "--show", "1"])
            #expect(json.status == 12)
            let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            #expect(report["broken"] as? Int == 2)
            #expect((report["examples"] as? [[String: Any]])?.first?["reason"] as? String == "root-relative")
            #expect((report["examples"] as? [Any])?.count == 1)
        }
    }

    @Test func badArgumentsHaveTheirExitCodes() async throws {
        let missing = try await MirrorProcess.run(["check", root + "/none"])
        #expect(missing.status == 3)
        #expect(missing.stderr.contains("no such folder"))
        let badOrigin = try await MirrorProcess.run(["check", root, "--origin", "example.org"])
        #expect(badOrigin.status == 2)
    }
}
