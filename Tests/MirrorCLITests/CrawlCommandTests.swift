import Foundation
import MirrorTestSupport
import Testing

/// `mirror crawl` run as a user would, against the in-process origin.
@Suite("mirror crawl")
final class CrawlCommandTests {
    /// A folder for each test (Swift Testing makes a new instance per test); `deinit` removes it.
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("cli-crawl-\(UUID().uuidString)").path

    deinit {
        try? FileManager.default.removeItem(atPath: root)
    }

    @Test func crawlsWritesAReportAndExitsZero() async throws {
        try await TestOrigin.with(site: .named("plain")) { origin in
            let result = try await MirrorProcess.run([
                "crawl", origin.url("/"), "-o", root + "/out", "--cache", root + "/cache",
                "--report", root + "/report.json",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("saved 9 files"))
            let report =
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: root + "/report.json")))
                as? [String: Any]
            #expect(report?["fetched"] as? Int == 9)
            #expect(FileManager.default.fileExists(atPath: root + "/out/index.html"))
        }
    }

    @Test func failuresAndBadArgumentsHaveTheirExitCodes() async throws {
        try await TestOrigin.with { origin in
            origin.route("/") { _ in .html("<a href=/missing.html>gone</a>") }
            let partial = try await MirrorProcess.run([
                "crawl", origin.url("/"), "-o", root + "/a", "--cache", root + "/cache", "--retries", "0",
            ])
            #expect(partial.status == 8)
            #expect(partial.stderr.contains("missing.html"))
            let nothing = try await MirrorProcess.run([
                "crawl", "http://127.0.0.1:1/", "-o", root + "/b", "--cache", root + "/cache", "--retries", "0",
            ])
            #expect(nothing.status == 4)
            #expect(nothing.stderr.contains("robots.txt unreachable (connection refused)"), "\(nothing.stderr)")
            let unknown = try await MirrorProcess.run([
                "crawl", "http://no-such-host.invalid/", "-o", root + "/e",
                "--cache", root + "/cache", "--retries", "0",
            ])
            #expect(unknown.status == 4)
            // "no such host", or why the lookup failed where no resolver answers; never a type's name.
            #expect(
                unknown.stderr.contains("no-such-host.invalid/robots.txt unreachable (no such host)")
                    || unknown.stderr.contains("unreachable (the host name could not be looked up"), "\(unknown.stderr)")
            let unwritable = try await MirrorProcess.run(["crawl", origin.url("/"), "-o", "/proc/mirror-test", "--cache", root + "/cache"])
            #expect(unwritable.status == 3)
            #expect(
                unwritable.stderr.contains("cannot open the output folder /proc/mirror-test: no such file or directory"),
                "\(unwritable.stderr)")
            let badRegex = try await MirrorProcess.run(["crawl", origin.url("/"), "--exclude", "([", "-o", root + "/c"])
            #expect(badRegex.status == 2)
            let notHTTP = try await MirrorProcess.run(["crawl", "ftp://example.org/", "-o", root + "/d"])
            #expect(notHTTP.status == 2)
        }
    }

    /// Ctrl-C stops the crawl, finishes the folder with what was saved and exits 130;
    /// `--resume` then completes it.
    @Test func ctrlCFinishesWhatWasSavedAndResumeCompletes() async throws {
        try await TestOrigin.with { origin in
            origin.route("/") { _ in .html((0..<60).map { "<a href='/p\($0).html'>\($0)</a>" }.joined()) }
            for index in 0..<60 {
                origin.route("/p\(index).html") { _ in
                    var response = TestResponse.html("<a href='/'>home</a> page \(index)")
                    response.delay = .milliseconds(100)
                    return response
                }
            }
            let arguments = [
                "crawl", origin.url("/"), "-o", root + "/out", "--cache", root + "/cache", "--concurrency", "2", "--per-host", "2",
                "--quiet",
            ]
            let process = try Subprocess(MirrorProcess.executable.path, arguments, stderr: .null)
            // Sent once the crawl has fetched a few pages (so its handler is installed, however slow
            // a loaded machine starts the child), and watched from Dispatch's threads, so a loaded
            // cooperative pool cannot delay the Ctrl-C until the crawl has finished.
            try await withTaskExecutorPreference(OffPoolExecutor.shared) {
                while origin.requests.count < 6 && process.isRunning { try await Task.sleep(for: .milliseconds(20)) }
                process.signal(SIGINT)
                #expect(try await process.exit(polling: .milliseconds(50)) == .exited(130))
            }
            #expect(FileManager.default.fileExists(atPath: root + "/out/.mirror/manifest.json"))
            #expect(FileManager.default.fileExists(atPath: root + "/out/index.html"))
            let before = origin.requests.count
            #expect(before < 62)

            let resumed = try await MirrorProcess.run(arguments + ["--resume"])
            #expect(resumed.status == 0, "\(resumed.stderr)")
            let pages = Set(origin.requests.map(\.path)).filter { $0.hasPrefix("/p") }
            #expect(pages.count == 60)
        }
    }
}
