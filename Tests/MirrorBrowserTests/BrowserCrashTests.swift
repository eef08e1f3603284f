import Foundation
import MirrorCrawl
import MirrorCrawlTesting
import MirrorLock
import MirrorTestSupport
import Testing

@testable import MirrorBrowser

extension BrowserSuites {
    @Suite("A browser that crashes")
    struct BrowserCrashTests {
        /// The browser is killed (SIGKILL) while a page loads, by the origin as it answers a script
        /// only the browser asks for: another browser starts, the page is loaded once more, and what
        /// its script builds is crawled.
        @Test func isStartedAgainAndThePageTriedOnceMore() async throws {
            let origin = try await TestOrigin.start()
            let renderer = try await BrowserTesting.renderer()
            let first = await renderer.browserProcessID
            let victim = Locked<pid_t?>(first)
            origin.route("/") { _ in .html("<a href=\"crash.html\">crash</a> <a href=\"after.html\">after</a>") }
            origin.route("/crash.html") { _ in
                .html("<p>crash</p><script>document.write('<script src=\"crash.js\"><' + '/script>')</script>")
            }
            origin.route("/crash.js") { _ in
                if let pid = victim.withLock({ pid in
                    defer { pid = nil }
                    return pid
                }) {
                    kill(pid, SIGKILL)
                }
                return .content(
                    "document.body.insertAdjacentHTML('beforeend', '<a href=\"built.html\">built</a>')", type: "text/javascript")
            }
            for page in ["after", "built"] { origin.route("/\(page).html") { _ in .html("<p>\(page)</p>") } }
            try await CrawlHarness.with { harness in
                let outcome: Result<CrawlReport, any Error>
                do {
                    outcome = .success(try await harness.crawl([origin.url("/")], renderer: renderer))
                } catch {
                    outcome = .failure(error)
                }
                let second = await renderer.browserProcessID
                await renderer.close()
                try await origin.shutdown()
                let report = try outcome.get()
                #expect(victim.withLock { $0 } == nil, "the browser was never killed")
                #expect(
                    first != nil && second != nil && first != second,
                    "no new browser: \(String(describing: first)) → \(String(describing: second))")
                #expect(report.failures.isEmpty && report.browserNotes.isEmpty, "\(report.failures) \(report.browserNotes)")
                for page in ["crash", "after", "built"] {
                    #expect(harness.fileExists("out", "\(origin.host)_\(origin.port)/\(page).html"), "\(page).html was not saved")
                }
            }
        }
    }
}
