import Foundation
import MirrorTestSupport
import Testing

extension BrowserSuites {
    /// The browser as a process of `mirror crawl --browser`: none is left behind however mirror
    /// ends, and a missing one is a clear error before any request.
    @Suite("The browser's process")
    struct BrowserProcessTests {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("browser-\(UUID().uuidString)").path

        @Test(arguments: [SIGKILL, SIGTERM, SIGINT])
        func endingMirrorEndsItsBrowser(signal: Int32) async throws {
            defer { try? FileManager.default.removeItem(atPath: root) }
            _ = try BrowserTesting.executable()
            let origin = try await TestOrigin.start()
            origin.route("/") { _ in .html("<p>a page that never finishes loading</p><img src=\"hang.png\">") }
            origin.route("/hang.png") { _ in
                var response = TestResponse.status(404)
                response.delay = .seconds(20)
                return response
            }
            let tag = UUID().uuidString
            var environment = ProcessInfo.processInfo.environment
            environment["MIRROR_TEST_TAG"] = tag
            let mirror = try Subprocess(
                BuiltProducts.executable("mirror").path,
                [
                    "crawl", origin.url("/"), "-o", root + "/out", "--cache", root + "/cache", "--browser", "--page-timeout", "60s",
                    "--quiet",
                ],
                environment: environment)
            // The browser is up once it has asked for the page's image.
            let deadline = ContinuousClock.now + .seconds(60)
            while origin.requests(path: "/hang.png").isEmpty && ContinuousClock.now < deadline && mirror.isRunning {
                try await Task.sleep(for: .milliseconds(100))
            }
            let browsers = Self.processes(tagged: tag).filter { $0 != mirror.pid }
            try #require(!browsers.isEmpty, "no browser process was started")
            mirror.signal(signal)
            _ = try await mirror.exit()
            var left = browsers
            for _ in 0..<100 where !left.isEmpty {
                try await Task.sleep(for: .milliseconds(100))
                left = Self.processes(tagged: tag)
            }
            #expect(left.isEmpty, "after signal \(signal) to mirror, \(left.count) of its \(browsers.count) browser processes still run")
            for pid in left { kill(pid, SIGKILL) }
            try await origin.shutdown()
        }

        @Test func aMissingBrowserIsAUsageErrorBeforeAnyRequest() async throws {
            defer { try? FileManager.default.removeItem(atPath: root) }
            let origin = try await TestOrigin.start()
            origin.route("/") { _ in .html("<p>home</p>") }
            let result = try await ChildProcess.run(
                BuiltProducts.executable("mirror"),
                [
                    "crawl", origin.url("/"), "-o", root + "/out", "--cache", root + "/cache", "--browser", "--browser-path",
                    root + "/no-chromium",
                ])
            #expect(result.status == 2, "\(result.stderr)")
            #expect(
                result.stderr.contains("no executable browser at \(root)/no-chromium")
                    && result.stderr.contains("apt-get install chromium"),
                "\(result.stderr)")
            #expect(origin.requests.isEmpty)
            let fromEnvironment = try await ChildProcess.run(
                BuiltProducts.executable("mirror"), ["crawl", origin.url("/"), "-o", root + "/out2", "--browser"],
                environment: ["MIRROR_BROWSER": "/nonexistent/chrome", "MIRROR_CACHE": root + "/cache"])
            #expect(fromEnvironment.status == 2 && fromEnvironment.stderr.contains("/nonexistent/chrome"), "\(fromEnvironment.stderr)")
            #expect(origin.requests.isEmpty)
            try await origin.shutdown()
        }

        /// The processes whose environment holds `MIRROR_TEST_TAG=tag`: mirror and what it started.
        static func processes(tagged tag: String) -> [pid_t] {
            let needle = Array("MIRROR_TEST_TAG=\(tag)".utf8)
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            return entries.compactMap(pid_t.init).filter { pid in
                guard let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
                return environ.split(separator: 0).contains { Array($0) == needle }
            }
        }
    }
}
