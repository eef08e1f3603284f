import Foundation
import MirrorCompression
import MirrorCore
import MirrorCrawl
import MirrorCrawlTesting
import MirrorSite
import MirrorTestSupport
import Testing

@Suite("Crawler end to end", .serialized)
final class CrawlerTests {
    /// A harness for each test (Swift Testing makes a new instance per test); `deinit` removes its folder.
    let harness = CrawlHarness()

    deinit {
        harness.remove()
    }

    /// Paths the origin was asked for, robots.txt left out.
    func fetched(_ origin: TestOrigin) -> [String] {
        origin.requests.map(\.uri).filter { $0 != "/robots.txt" }
    }

    @Test func crawlsAWholeSiteOnce() async throws {
        try await TestOrigin.with(site: .named("plain")) { origin in
            let report = try await harness.crawl([origin.url("/")])
            let paths = Set(fetched(origin))
            #expect(
                paths == [
                    "/", "/style.css", "/img/logo.png", "/about.html", "/blog/", "/blog/post-1.html",
                    "/blog/post-2.html", "/blog/deep/page.html", "/index.html",
                ])
            #expect(fetched(origin).count == paths.count, "some URL was fetched twice")
            #expect(report.failures.isEmpty)
            #expect(report.pages == 7 && report.requisites == 2)
            let manifest = try harness.manifest()
            #expect(manifest.resources.count == 9)
            for resource in manifest.resources.values { #expect(harness.fileExists("out", resource.path)) }
            #expect(harness.fileExists("out", "index.html"))
        }
    }

    @Test func depthLimitsPagesButNotTheirRequisites() async throws {
        try await TestOrigin.with(site: .named("plain")) { origin in
            let report = try await harness.crawl([origin.url("/")]) { $0.maxDepth = 1 }
            let paths = Set(fetched(origin))
            #expect(paths.isSuperset(of: ["/", "/about.html", "/blog/", "/style.css", "/img/logo.png"]))
            #expect(!paths.contains("/blog/post-1.html"))
            #expect((report.skipped[SkipReason.depth.rawValue] ?? 0) >= 2)
            #expect(report.skippedExamples.contains { $0.url == origin.url("/blog/post-1.html") && $0.reason == SkipReason.depth.rawValue })
        }
    }

    @Test func requisitesComeFromOtherHostsButPagesDoNot() async throws {
        try await TestOrigin.with { main in
            try await TestOrigin.with { cdn in
                main.route("/") { _ in .html("<img src='\(cdn.url("/logo.png"))'><a href='\(cdn.url("/page.html"))'>elsewhere</a>") }
                cdn.route("/logo.png") { _ in .content("png", type: "image/png") }
                cdn.route("/page.html") { _ in .html("other site") }
                let report = try await harness.crawl([main.url("/")])
                #expect(fetched(cdn) == ["/logo.png"])
                #expect(report.skipped[SkipReason.offsite.rawValue] == 1)

                cdn.clearLog()
                let strict = try await harness.crawl([main.url("/")], output: "strict") { $0.requisites = false }
                #expect(fetched(cdn).isEmpty)
                #expect(strict.skipped[SkipReason.requisitesOff.rawValue] == 1)
                // --allow-host brings the second host into scope.
                let wide = try await harness.crawl([main.url("/")], output: "wide") { $0.allowedHosts = [HostPattern(cdn.authority)!] }
                #expect(wide.pages == 2)
            }
        }
    }

    @Test func robotsRulesAreObeyedUnlessIgnored() async throws {
        try await TestOrigin.with { origin in
            origin.route("/robots.txt") { _ in .content("User-agent: *\nDisallow: /private\n", type: "text/plain") }
            origin.route("/") { _ in .html("<a href=/private/x.html>p</a> <a href=/public.html>q</a>") }
            origin.route("/public.html") { _ in .html("public") }
            origin.route("/private/x.html") { _ in .html("private") }
            let report = try await harness.crawl([origin.url("/")])
            #expect(!fetched(origin).contains("/private/x.html"))
            #expect(fetched(origin).contains("/public.html"))
            #expect(report.skipped[SkipReason.robots.rawValue] == 1)
            let ignoring = try await harness.crawl([origin.url("/")], output: "all") { $0.obeyRobots = false }
            #expect(fetched(origin).contains("/private/x.html"))
            #expect(ignoring.skipped[SkipReason.robots.rawValue] == nil)
        }
    }

    @Test func redirectChainsAreFollowedAndLoopsEnd() async throws {
        try await TestOrigin.with { origin in
            origin.route("/") { _ in .html("<a href=/r1>chain</a> <a href=/loop-a>loop</a>") }
            origin.route("/r1") { _ in .redirect(to: "/r2", status: 301) }
            origin.route("/r2") { _ in .redirect(to: "/final.html", status: 308) }
            origin.route("/final.html") { _ in .html("end of the chain") }
            origin.route("/loop-a") { _ in .redirect(to: "/loop-b") }
            origin.route("/loop-b") { _ in .redirect(to: "/loop-a") }
            let report = try await harness.crawl([origin.url("/")])
            #expect(fetched(origin).filter { $0 == "/loop-a" || $0 == "/loop-b" }.count == 2)
            #expect(fetched(origin).contains("/final.html"))
            let manifest = try harness.manifest()
            #expect(manifest.path(for: origin.url("/r1")) == manifest.path(for: origin.url("/final.html")))
            #expect(report.redirects == 4)
        }
    }

    @Test func transientErrorsAreRetried() async throws {
        try await TestOrigin.with { origin in
            let attempts = Counter()
            origin.route("/") { _ in
                attempts.increment() < 2 ? TestResponse.status(503, "busy", headers: [("Retry-After", "0")]) : .html("finally")
            }
            let report = try await harness.crawl([origin.url("/")]) { $0.retries = 2 }
            #expect(origin.requests(path: "/").count == 3)
            #expect(report.failures.isEmpty)
            #expect(report.pages == 1)
            let failing = try await harness.crawl([origin.url("/gone")], output: "gone") { $0.retries = 0 }
            #expect(failing.failures.first?.status == 404)
        }
    }

    @Test func crawlerTrapsAreBounded() async throws {
        try await TestOrigin.with { origin in
            origin.route("/calendar") { request in
                let day = Int(request.query?.split(separator: "=").last ?? "0") ?? 0
                return .html("<a href='/calendar?day=\(day + 1)'>next</a> <a href='/calendar?day=\(day + 1)&sessionid=abc'>s</a>")
            }
            origin.route("/") { _ in .html("<a href='/calendar?day=0'>c</a> <a href='a/a/a/a/a/x.html'>deep</a>") }
            let report = try await harness.crawl([origin.url("/")]) { $0.maxPages = 25 }
            #expect(report.pages == 25)
            #expect(report.skipped[SkipReason.maxPages.rawValue] != nil)
            #expect(report.skipped[SkipReason.sessionID.rawValue] != nil)
            #expect(report.skipped[SkipReason.repeatedSegments.rawValue] == 1)
            #expect(fetched(origin).count == 25)
        }
    }

    /// Pages in flight hold the last places of `--max-pages` until they end: one that fails
    /// leaves its place to the next page, so the crawl saves exactly the limit, no more, no less.
    @Test func maxPagesIsReachedWhenPagesInFlightFail() async throws {
        try await TestOrigin.with { origin in
            let bad = (1...3).map { "/bad\($0).html" }
            let good = (1...6).map { "/good\($0).html" }
            origin.route("/") { _ in .html((bad + good).map { "<a href='\($0)'>x</a>" }.joined()) }
            for path in bad {
                origin.route(path) { _ in
                    var response = TestResponse.status(404, "gone")
                    response.delay = .milliseconds(300)
                    return response
                }
            }
            for path in good { origin.route(path) { _ in .html("fine") } }
            let report = try await harness.crawl([origin.url("/")]) {
                $0.maxPages = 4
                $0.concurrency = 8
                $0.perHost = 8
            }
            #expect(report.pages == 4)
            // Which pages get the places depends on which worker asks first (a loaded run gave one
            // to a good page before the third bad one): three good ones are saved after the root,
            // and each bad one failed in flight, giving its place up, or never got one.
            #expect(report.failures.count + (report.skipped[SkipReason.maxPages.rawValue] ?? 0) == 6)
        }
    }

    @Test func aCancelledCrawlResumesWithoutFetchingTwice() async throws {
        try await TestOrigin.with { origin in
            origin.routeSlowPages(40, delay: .milliseconds(50), headers: [("Cache-Control", "no-store")])
            let harness = self.harness
            let first = Task {
                try await harness.crawl([origin.url("/")]) {
                    $0.concurrency = 2
                    $0.perHost = 2
                }
            }
            // Cancelled once a few pages are in, however slow a loaded run is to get there (a fixed
            // 400 ms once saw only 2 requests in a full run).
            let deadline = ContinuousClock.now + .seconds(60)
            while Set(fetched(origin)).count < 4 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            first.cancel()
            _ = try? await first.value
            let before = Set(fetched(origin))
            #expect(before.count > 2 && before.count < 41, "cancelled at a useless moment: \(before.count)")
            let report = try await harness.crawl([origin.url("/")], resume: true) {
                $0.concurrency = 2
                $0.perHost = 2
            }
            let all = fetched(origin)
            #expect(Set(all).count == 41)
            // Nothing finished before the cancellation is fetched again (a request cut by it may be).
            #expect(all.count - 41 <= 2, "\(all.count - 41) URLs fetched twice")
            #expect(report.failures.isEmpty)
        }
    }

    @Test func offlineRecrawlTouchesNoNetwork() async throws {
        try await TestOrigin.with(site: .named("plain")) { origin in
            _ = try await harness.crawl([origin.url("/")])
            origin.clearLog()
            let offline = try await harness.crawl([origin.url("/")], output: "again", mode: .offline)
            #expect(origin.requests.isEmpty)
            #expect(offline.fetched == 9)
            #expect(try harness.manifest("again").resources == harness.manifest().resources)
        }
    }

    @Test func oneHundredWorkersAgainstOneSlowOrigin() async throws {
        try await TestOrigin.with { origin in
            origin.routeSlowPages(200, delay: .milliseconds(200))
            let report = try await harness.crawl([origin.url("/")]) {
                $0.concurrency = 100
                $0.perHost = 100
            }
            #expect(report.pages == 201)
            // One at a time, 200 pages × 200 ms would take 40 s; the workers overlap their waits, as
            // many as the harness's shared transport has connections to one host (8).
            #expect(origin.peakRequestsInFlight == 8, "\(origin.peakRequestsInFlight)")
        }
    }
}

/// A thread-safe counter for routes.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    /// Returns the value before incrementing.
    func increment() -> Int {
        lock.withLock {
            defer { value += 1 }
            return value
        }
    }
}

extension CrawlerTests {
    @Test func sitemapsAreReadOnlyWhenAskedFor() async throws {
        try await TestOrigin.with { origin in
            origin.route("/robots.txt") { _ in
                .content("User-agent: *\nAllow: /\nSitemap: \(origin.url("/index-of-maps.xml"))\n", type: "text/plain")
            }
            origin.route("/index-of-maps.xml") { _ in
                .content(
                    "<sitemapindex><sitemap><loc>\(origin.url("/pages.xml.gz"))</loc></sitemap></sitemapindex>",
                    type: "application/xml")
            }
            origin.route("/pages.xml.gz") { _ in
                let xml =
                    "<urlset><url><loc>\(origin.url("/orphan.html"))</loc></url>"
                    + "<url><loc>http://elsewhere.invalid/x</loc></url></urlset>"
                return TestResponse(headers: ["Content-Type": "application/gzip"], body: try! GzipEncoder.compress(Array(xml.utf8)))
            }
            origin.route("/") { _ in .html("home, linking nothing") }
            origin.route("/orphan.html") { _ in .html("only the sitemap knows me") }
            _ = try await harness.crawl([origin.url("/")])
            #expect(!fetched(origin).contains("/orphan.html"))
            let report = try await harness.crawl([origin.url("/")], output: "maps") { $0.sitemaps = true }
            #expect(fetched(origin).contains("/orphan.html"))
            #expect(report.pages == 2)
            #expect(report.skipped[SkipReason.offsite.rawValue] == 1)
        }
    }

    @Test func everyKindOfLinkIsFound() async throws {
        try await TestOrigin.with(site: .named("links")) { origin in
            let report = try await harness.crawl([origin.url("/")])
            let paths = Set(fetched(origin).map { $0.removingPercentEncoding ?? $0 })
            let expected: Set<String> = [
                "/", "/css/theme.css?v=2022.1", "/css/imported.css", "/css/print.css", "/img/icon.png", "/fonts/body.woff2",
                "/img/style-block.png", "/app.js?build=7", "/docs", "/docs/", "/docs/guide.html", "/page.html?id=3&lang=en",
                "/page.html?id=4", "/ünïcode.html", "/with space.html", "/old.html", "/index.html", "/moved", "/refresh.html",
                "/base.html", "/img/base-target.png", "/img/b.png", "/img/a,1.png", "/img/lazy.png", "/img/lazy-2x.png",
                "/img/pic-large.png", "/img/pic-small.png", "/img/inline.png", "/img/poster.png", "/media/clip.mp4",
                "/media/captions.vtt", "/frame.html", "/img/sprite.svg", "/img/bg.png",
            ]
            #expect(expected.subtracting(paths).isEmpty, "not fetched: \(expected.subtracting(paths).sorted())")
            #expect(paths.subtracting(expected).isEmpty, "unexpected: \(paths.subtracting(expected).sorted())")
            #expect(report.failures.isEmpty, "\(report.failures)")
        }
    }

    @Test func aLatin1PageGivesUTF8URLs() async throws {
        try await TestOrigin.with { origin in
            origin.route("/") { _ in
                TestResponse(
                    headers: ["Content-Type": "text/html; charset=iso-8859-1"],
                    body: Array("<a href='caf".utf8) + [0xE9] + Array(".html'>caf</a>".utf8))
            }
            origin.route("/caf%C3%A9.html") { _ in .html("café") }
            let report = try await harness.crawl([origin.url("/")])
            #expect(fetched(origin).contains("/caf%C3%A9.html"))
            #expect(report.failures.isEmpty)
        }
    }
}

extension CrawlerTests {
    @Test func filesOverTheSizeLimitAreSkippedWithAReason() async throws {
        try await TestOrigin.with { origin in
            origin.route("/") { _ in .html("<img src=/big.png><img src=/small.png>") }
            origin.route("/big.png") { _ in
                TestResponse(headers: ["Content-Type": "image/png"], body: [UInt8](repeating: 1, count: 300_000))
            }
            origin.route("/small.png") { _ in TestResponse(headers: ["Content-Type": "image/png"], body: [1, 2, 3]) }
            let report = try await harness.crawl([origin.url("/")], maxBodySize: 100_000)
            #expect(report.skipped[SkipReason.tooLarge.rawValue] == 1)
            #expect(report.requisites == 1)
            #expect(report.failures.isEmpty)
        }
    }
}

extension CrawlerTests {
    /// The finished folder browses offline: the offline link checker finds no broken link and
    /// no link left pointing at the origin.
    @Test func theFinishedFolderBrowsesOffline() async throws {
        try await TestOrigin.with(site: .named("links")) { origin in
            _ = try await harness.crawl([origin.url("/")])
            let report = try OfflineLinkChecker(folder: "\(harness.root)/out", origin: origin.baseURL).check()
            #expect(report.broken == 0, "\(report.examples)")
            #expect(report.unconverted == 0)
            #expect(report.local > 40, "\(report)")
            // The page and its rewritten stylesheet link: the query went into the file name, escaped.
            let index = try String(contentsOfFile: "\(harness.root)/out/127.0.0.1_\(origin.port)/index.html", encoding: .utf8)
            #expect(index.contains("href=\"css/theme@v=2022.1.css\""))
            #expect(!index.contains(origin.baseURL))
        }
    }
}
