import Foundation
import MirrorTestSupport
import Testing

extension BrowserSuites {
    /// `kill -9` of a real `mirror crawl --browser` while pages load, then `--resume`: the folder an
    /// uninterrupted crawl gives, and the pages done before the kill are not loaded again.
    @Suite("kill -9 and --resume with a browser")
    struct BrowserResumeTests {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("browser-resume-\(UUID().uuidString)").path

        @Test(arguments: [1, 3])
        func killedWhileLoadingPagesThenResumedGivesTheUninterruptedFolder(afterPages: Int) async throws {
            defer { try? FileManager.default.removeItem(atPath: root) }
            _ = try BrowserTesting.executable()
            let origin = try await TestOrigin.start(site: .named("scripted"))
            let mirror = BuiltProducts.executable("mirror").path
            let common = [origin.url("/"), "--browser", "--browser-tabs", "1", "--verbose"]
            let reference = try await ChildProcess.run(
                URL(fileURLWithPath: mirror),
                ["crawl"] + common + ["-o", root + "/reference", "--cache", root + "/reference-cache"])
            try #require(reference.status == 0, "\(reference.stderr.suffix(2000))")
            let pages = Self.loaded(reference.stderr)
            try #require(pages.count == 6, "\(reference.stderr)")

            let arguments = ["crawl"] + common + ["-o", root + "/out", "--cache", root + "/cache"]
            let log = root + "/killed.log"
            let killed = try Subprocess(mirror, arguments, stderr: .file(log))
            var before: [String] = []
            while killed.isRunning && before.count < afterPages {
                try await Task.sleep(for: .milliseconds(5))
                before = Self.loaded((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
            }
            killed.signal(SIGKILL)
            #expect(try await killed.exit() == .signalled(SIGKILL), "the crawl ended before the kill")
            let profiles = { (try? FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())) ?? [] }
            #expect(profiles().contains { $0.hasPrefix("mirror-browser-\(killed.pid)-") }, "the killed crawl's browser profile")
            let resumed = try await ChildProcess.run(URL(fileURLWithPath: mirror), arguments + ["--resume"])
            #expect(resumed.status == 0, "\(resumed.stderr.suffix(2000))")
            #expect(!profiles().contains { $0.hasPrefix("mirror-browser-\(killed.pid)-") }, "removed by the next launch")
            let after = Self.loaded(resumed.stderr)
            before = Self.loaded((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
            // A page loaded when the kill came may load again; none loaded before it does.
            #expect(Set(before).count + Set(after).count <= pages.count + 1, "before the kill \(before), after \(after)")
            #expect(Set(before).union(after) == Set(pages))

            let expected = FolderContents.files(root + "/reference", excluding: [".mirror/"])
            let actual = FolderContents.files(root + "/out", excluding: [".mirror/"])
            #expect(Set(actual.keys) == Set(expected.keys))
            #expect(expected.keys.filter { actual[$0] != expected[$0] }.sorted().isEmpty)
            try await origin.shutdown()
        }

        /// The pages a verbose log says were loaded in the browser, in order.
        static func loaded(_ log: String) -> [String] {
            log.split(separator: "\n").filter { $0.hasPrefix("mirror: BROWSER ") }.map { String($0.split(separator: " ")[2]) }
        }
    }
}
