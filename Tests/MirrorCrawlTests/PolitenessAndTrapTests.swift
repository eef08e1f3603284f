import Foundation
import MirrorCrawl
import MirrorCrawlTesting
import MirrorTestSupport
import Testing

/// Politeness holds for every host the crawl touches, and trap defences cut a trap after its
/// first step instead of hiding the page.
@Suite("Politeness and traps")
final class PolitenessAndTrapTests {
    /// A harness for each test (Swift Testing makes a new instance per test); `deinit` removes its folder.
    let harness = CrawlHarness()

    deinit {
        harness.remove()
    }

    /// robots.txt is the first request to the page host and to a requisite host, and every
    /// host's requests reach it spaced by its delay: `--delay` on one, a longer Crawl-delay on
    /// the other.
    @Test func robotsFirstAndDelaysOnEveryHost() async throws {
        try await TestOrigin.with { pages in
            try await TestOrigin.with { images in
                pages.route("/robots.txt") { _ in
                    TestResponse(headers: [("Content-Type", "text/plain")], body: "User-agent: *\nDisallow:\n")
                }
                images.route("/robots.txt") { _ in
                    TestResponse(headers: [("Content-Type", "text/plain")], body: "User-agent: *\nCrawl-delay: 0.4\n")
                }
                pages.route("/") { _ in
                    .html((1...3).map { "<a href='/p\($0).html'>p</a><img src='\(images.url("/i\($0).png"))'>" }.joined())
                }
                for index in 1...3 {
                    pages.route("/p\(index).html") { _ in .html("page \(index)") }
                    images.route("/i\(index).png") { _ in TestResponse(headers: [("Content-Type", "image/png")], body: "png") }
                }
                let report = try await harness.crawl([pages.url("/")]) {
                    $0.delay = 0.2
                    $0.concurrency = 8
                    $0.perHost = 4
                }
                #expect(report.pages == 4 && report.requisites == 3)
                for (origin, delay, count) in [(pages, 0.2, 5), (images, 0.4, 4)] {
                    let requests = origin.requests
                    #expect(requests.first?.path == "/robots.txt", "\(origin.baseURL): robots.txt was not the first request")
                    #expect(requests.count == count)
                    // Arrival times at the origin: the delay runs from the end of the previous request
                    // too, which came after its arrival, so no two arrivals are closer than the delay
                    // however late a request reached the origin (10 ms for the two clocks' rounding).
                    for (earlier, later) in zip(requests, requests.dropFirst()) {
                        let gap = later.time.timeIntervalSince(earlier.time)
                        #expect(gap >= delay - 0.01, "\(origin.baseURL): \(earlier.uri) then \(later.uri) only \(gap) s apart")
                    }
                }
            }
        }
    }

    /// With a delay, a host has one request in flight at a time: a slow answer holds the next
    /// request back (spaced from starts alone, requests 0.1 s apart that take 0.3 s each overlap),
    /// so the origin sees the spacing however late a request reaches it.
    @Test func aHostWithADelayHasOneRequestInFlight() async throws {
        try await TestOrigin.with { origin in
            origin.routeSlowPages(4, delay: .milliseconds(300))
            let report = try await harness.crawl([origin.url("/")]) {
                $0.delay = 0.1
                $0.concurrency = 8
                $0.perHost = 4
            }
            #expect(report.pages == 5)
            #expect(origin.peakRequestsInFlight == 1)
        }
    }

    /// `--per-host` bounds the requests a host answers at once, however many workers parse pages.
    /// Until two requests have been in flight at once, each page waits for a second (5 s at most):
    /// with fixed delays alone, a machine loaded by the browser tests can send them one at a time.
    /// Every page then takes 0.1 s more, long enough for a third request to overlap if the crawl
    /// sent one.
    @Test func aHostAnswersAtMostPerHostRequestsAtOnce() async throws {
        try await TestOrigin.with { origin in
            origin.routeLinkedPages(12) { [weak origin] index in
                let deadline = ContinuousClock.now + .seconds(5)
                while let origin, origin.peakRequestsInFlight < 2, ContinuousClock.now < deadline {
                    try? await Task.sleep(for: .milliseconds(5))
                }
                try? await Task.sleep(for: .milliseconds(100))
                return .html("page \(index)")
            }
            let report = try await harness.crawl([origin.url("/")]) {
                $0.concurrency = 8
                $0.perHost = 2
            }
            #expect(report.pages == 13)
            #expect(origin.peakRequestsInFlight == 2)
        }
    }

    /// A link with a session id is followed the first time; the chain of new ids is cut and counted.
    @Test func aSessionIDLinkIsFetchedOnceThenTheChainIsCut() async throws {
        try await TestOrigin.with { origin in
            origin.route("/") { _ in .html("<a href='/a?sid=1'>a</a>") }
            for page in ["a", "b"] {
                origin.route("/\(page)") { request in
                    let sid = Int(request.query?.split(separator: "=").last ?? "0") ?? 0
                    return .html("<a href='/a?sid=\(sid + 1)'>a</a> <a href='/b?sid=\(sid + 1)'>b</a> <a href='/c;jsessionid=\(sid)'>c</a>")
                }
            }
            origin.route("/c;jsessionid=1") { _ in .html("c") }
            let report = try await harness.crawl([origin.url("/")])
            let fetched = origin.requests.map(\.path).filter { $0 != "/robots.txt" }
            #expect(fetched.sorted() == ["/", "/a", "/b", "/c;jsessionid=1"])
            #expect(report.skipped[SkipReason.sessionID.rawValue] ?? 0 >= 3)
            #expect(harness.fileExists("out", "127.0.0.1_\(origin.port)/a@sid=1.html"))
        }
    }
}
