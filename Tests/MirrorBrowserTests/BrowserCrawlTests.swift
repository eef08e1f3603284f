import Foundation
import MirrorBrowser
import MirrorCache
import MirrorCore
import MirrorCrawl
import MirrorCrawlTesting
import MirrorHTTP
import MirrorProxy
import MirrorSite
import MirrorTestSupport
import NIOHTTP1
import Testing

extension BrowserSuites {
    /// `mirror crawl --browser` on the `scripted` fixture site, whose navigation, data, late
    /// stylesheet, lazy and scroll-loaded images and a script with a computed name exist only once
    /// JavaScript runs, in a real Chromium.
    @Suite("Crawling with a browser")
    struct BrowserCrawlTests {
        /// What only the browser finds: each is requested by a script, a late stylesheet, an observer
        /// or scrolling, never named in the bytes of a page.
        static let scriptOnly = [
            "navindex0.js", "late.css", "img/late-bg.png", "img/observed.png", "more.js", "img/more.png",
            "data/items.json", "img/item.png", "built.html", "more.html", "items/one.html",
        ]

        @Test func everythingScriptsLoadIsCachedAndSavedAndWorksOffline() async throws {
            let origin = try await TestOrigin.start(site: .named("scripted"))
            try await CrawlHarness.with { harness in
                let renderer = try await BrowserTesting.renderer()
                let report: CrawlReport
                do {
                    report = try await harness.crawl([origin.url("/")], renderer: renderer)
                } catch {
                    await renderer.close()
                    try await origin.shutdown()
                    throw error
                }
                await renderer.close()
                let folder = harness.root + "/out/\(origin.host)_\(origin.port)/"
                #expect(report.failures.isEmpty, "\(report.failures)")
                #expect(report.browserNotes.isEmpty, "\(report.browserNotes)")
                for path in Self.scriptOnly {
                    #expect(FileManager.default.fileExists(atPath: folder + path), "\(path) is not in the folder")
                }
                // Every request the browser made went through the crawl's cache, once.
                let store = try CacheStore(directory: harness.cache)
                for path in Self.scriptOnly {
                    #expect(try store.entry(for: origin.url("/" + path), request: HTTPHeaders()) != nil, "\(path) is not in the cache")
                }
                // Chromium's own background traffic (update checks and the like) reached neither the cache nor the network.
                let strangers = try store.allEntries().map(\.url).filter { !$0.hasPrefix(origin.baseURL + "/") }
                #expect(strangers.isEmpty, "cached from elsewhere: \(strangers)")
                let repeated = Dictionary(grouping: origin.requests.map(\.path), by: { $0 }).filter { $0.value.count > 1 }.keys
                #expect(repeated.isEmpty, "requested more than once: \(repeated.sorted())")

                // The page whose scripts load only files is the original, its scripts running offline;
                // the page built from fetched JSON is its rendered DOM with inert scripts.
                let home = try String(contentsOfFile: folder + "index.html", encoding: .utf8)
                #expect(home.contains("<script src=\"app.js\"></script>") && !home.contains("built.html"))
                let data = try String(contentsOfFile: folder + "data.html", encoding: .utf8)
                #expect(data.hasPrefix("<!DOCTYPE html>") && data.contains("Item one") && data.contains("text/x-mirror-inert"))

                let links = try OfflineLinkChecker(folder: harness.root + "/out", origin: origin.baseURL, exampleLimit: 20).check()
                #expect(links.broken == 0 && links.local >= 8, "\(links)")

                // Each page looks offline as it did online: text, images loaded, style applied.
                do {
                    try await PageViewer.with { viewer in
                        for page in ["", "data.html", "built.html"] {
                            let online = try await viewer.view(origin.url("/" + page))
                            let offline = try await viewer.view("file://" + folder + (page.isEmpty ? "index.html" : page))
                            #expect(online == offline, "\(page): online \(online)\noffline \(offline)")
                            if page.isEmpty {
                                #expect(
                                    online.images == ["more.png", "observed.png"] && online.text.contains("Data page")
                                        && online.bodyStyle.contains("late-bg.png"), "\(online)")
                            }
                        }
                    }
                } catch {
                    Issue.record(error)
                }

                // Offline, with the origin gone, the browser loads the pages against the cache alone and
                // the same folder comes out.
                try await origin.shutdown()
                let offlineRenderer = try await BrowserTesting.renderer()
                let again = try await harness.crawl([origin.url("/")], output: "offline", mode: .offline, renderer: offlineRenderer)
                await offlineRenderer.close()
                #expect(again.failures.isEmpty && again.browserNotes.isEmpty, "\(again.failures) \(again.browserNotes)")
                let first = FolderContents.files(harness.root + "/out", excluding: [".mirror/"])
                let second = FolderContents.files(harness.root + "/offline", excluding: [".mirror/"])
                #expect(Set(first.keys) == Set(second.keys))
                #expect(first.keys.filter { first[$0] != second[$0] }.isEmpty)
            }
        }

        /// An HTTPS site: the browser reaches it through its tab's proxy, which decrypts with the
        /// cache folder's interception CA (trusted by this browser alone) and fetches through the
        /// crawl's transport, which checks the origin's real certificate.
        @Test func httpsPagesGoThroughTheInterceptionAuthority() async throws {
            let authority = try TestCertificateAuthority()
            let origin = try await TestOrigin.start(site: .named("scripted"), tls: try authority.serverIdentity())
            let transport = AsyncHTTPClientTransport(
                security: try await authority.withCertificateFile {
                    try TransportSecurity(caCertificateFiles: [$0], environment: [:])
                })
            try await CrawlHarness.with(transport: transport) { harness in
                let interception = try InterceptionAuthority(cacheFolder: harness.root + "/ca")
                var settings = ChromiumRenderer.Settings(executable: try BrowserTesting.executable())
                settings.interception = interception
                settings.interceptionSPKI = interception.spkiSHA256
                let report = try await BrowserTesting.crawl(
                    [origin.url("/")], in: harness, renderer: try await ChromiumRenderer.start(settings)
                ) {
                    try await origin.shutdown()
                    try await transport.shutdown()
                }
                #expect(origin.baseURL.hasPrefix("https://"))
                #expect(report.failures.isEmpty && report.browserNotes.isEmpty, "\(report.failures) \(report.browserNotes)")
                for path in Self.scriptOnly {
                    #expect(harness.fileExists("out", "\(origin.host)_\(origin.port)/\(path)"), "\(path) is not in the folder")
                }
            }
        }

        /// What a page's scripts ask for keeps the crawl's politeness: `--per-host` (the crawl's
        /// transport opens no more connections to a host), and `--delay` (one request in flight to
        /// the host, each starting a delay after the one before).
        @Test(arguments: [(perHost: 2, delay: nil), (perHost: 4, delay: 0.1)] as [(perHost: Int, delay: Double?)])
        func politenessHoldsForWhatThePageAsksFor(perHost: Int, delay: Double?) async throws {
            let origin = try await TestOrigin.start()
            let images = (1...10).map { "img\($0).png" }
            origin.route("/") { _ in
                .html("<p>gallery</p><script>\(images.map { "document.write('<img src=\"\($0)\">');" }.joined())</script>")
            }
            for image in images {
                origin.route("/" + image) { _ in
                    var response = TestResponse(headers: ["Content-Type": "image/png"], body: Array(repeating: 1, count: 64))
                    response.delay = .milliseconds(200)
                    return response
                }
            }
            let transport = AsyncHTTPClientTransport(connectionsPerHost: perHost)
            try await CrawlHarness.with(transport: transport) { harness in
                let report = try await BrowserTesting.crawl([origin.url("/")], in: harness, renderer: try await BrowserTesting.renderer()) {
                    $0.perHost = perHost
                    $0.delay = delay
                    $0.obeyRobots = false
                } thenStop: {
                    try await origin.shutdown()
                    try await transport.shutdown()
                }
                #expect(report.failures.isEmpty && report.browserNotes.isEmpty, "\(report.failures) \(report.browserNotes)")
                for image in images { #expect(harness.fileExists("out", "\(origin.host)_\(origin.port)/\(image)")) }
                let requests = origin.requests.filter { $0.path.hasSuffix(".png") }
                #expect(requests.count == images.count, "\(requests.map(\.uri))")
                if let delay {
                    #expect(origin.peakRequestsInFlight == 1)
                    let starts = origin.requests.map(\.time).sorted()
                    let gaps = zip(starts, starts.dropFirst()).map { $1.timeIntervalSince($0) }
                    #expect(gaps.allSatisfy { $0 >= delay * 0.95 }, "\(gaps)")
                } else {
                    #expect(origin.peakRequestsInFlight <= perHost && origin.peakRequestsInFlight > 1, "\(origin.peakRequestsInFlight)")
                }
            }
        }

        /// Pages that would hang a naive driver: each is bounded by the page timeout or answered, the
        /// crawl goes on to the pages after them, and the report says what each did.
        @Test func hostilePagesAreBoundedAndReported() async throws {
            let origin = try await TestOrigin.start()
            let pages = ["loop", "dialogs", "away", "popup", "download", "flood", "never", "excluded"]
            origin.route("/") { _ in
                .html(pages.map { "<a href=\"\($0).html\">\($0)</a>" }.joined(separator: " "))
            }
            origin.route("/loop.html") { _ in .html("<a href=\"after-loop.html\">next</a><script>while (true) {}</script>") }
            origin.route("/dialogs.html") { _ in
                .html("<script>alert('hello'); if (confirm('sure?')) document.write('<a href=\"after-dialogs.html\">next</a>')</script>")
            }
            origin.route("/away.html") { _ in .html("<script>location.href = 'elsewhere.html'</script>") }
            origin.route("/popup.html") { _ in .html("<script>window.open('popped.html')</script><p>popup</p>") }
            origin.route("/download.html") { _ in .html("<script>location.href = 'file.bin'</script>") }
            origin.route("/file.bin") { _ in
                TestResponse(
                    headers: ["Content-Type": "application/octet-stream", "Content-Disposition": "attachment; filename=file.bin"],
                    body: Array(repeating: 7, count: 1000))
            }
            origin.route("/flood.html") { _ in .html("<script>let i = 0; setInterval(() => fetch('flood.json?' + i++), 2)</script>") }
            origin.route("/flood.json") { _ in .content("{}", type: "application/json") }
            // What a page's script asks for obeys the crawl's rules: --exclude keeps this from the network.
            origin.route("/excluded.html") { _ in .html("<script>fetch('secret.json'); fetch('secret.json?again')</script>") }
            origin.route("/secret.json") { _ in .content("{}", type: "application/json") }
            origin.route("/never.html") { _ in .html("<p>never</p><img src=\"hang.png\">") }
            origin.route("/hang.png") { _ in
                var response = TestResponse.status(404)
                response.delay = .seconds(8)
                return response
            }
            for page in ["after-loop", "after-dialogs", "elsewhere", "popped"] {
                origin.route("/\(page).html") { _ in .html("<p>\(page)</p>") }
            }
            try await CrawlHarness.with { harness in
                let renderer = try await BrowserTesting.renderer(pageTimeout: .seconds(4), maxRequestsPerPage: 100)
                let started = ContinuousClock.now
                let secret = try URLPattern("secret")
                let report = try await BrowserTesting.crawl([origin.url("/")], in: harness, renderer: renderer) {
                    $0.concurrency = 2
                    $0.exclude = [secret]
                } thenStop: {
                    try await origin.shutdown()
                }
                let seconds = (ContinuousClock.now - started).components.seconds
                #expect(seconds < 90, "the crawl took \(seconds) s")
                func notes(_ page: String) -> [String] {
                    report.browserNotes.filter { $0.url.hasSuffix("/\(page).html") }.map { $0.message }
                }
                #expect(notes("loop").contains { $0.contains("did not settle") }, "\(report.browserNotes)")
                #expect(notes("dialogs").count(where: { $0.contains("dialog") }) == 2, "\(report.browserNotes)")
                #expect(
                    notes("away").contains { $0.contains("navigated itself") && $0.contains("elsewhere.html") },
                    "\(report.browserNotes)")
                #expect(notes("popup").contains { $0.contains("opened a window") }, "\(report.browserNotes)")
                #expect(notes("download").contains { $0.contains("download") }, "\(report.browserNotes)")
                #expect(notes("flood").contains { $0.contains("more than 100 requests") }, "\(report.browserNotes)")
                #expect(notes("never").contains { $0.contains("did not settle") }, "\(report.browserNotes)")
                // The crawl went on: links found in the bytes, after dismissed dialogs, and where a page
                // sent itself or a window.
                for page in ["after-loop", "after-dialogs", "elsewhere", "popped"] {
                    #expect(
                        harness.fileExists("out", "\(origin.host)_\(origin.port)/\(page).html") || page == "popped",
                        "\(page).html was not saved")
                }
                #expect(origin.requests(path: "/flood.json").count <= 100)
                #expect(origin.requests(path: "/secret.json").isEmpty)
                #expect(report.skipped[SkipReason.excluded.rawValue] == 2, "\(report.skipped)")
            }
        }
    }
}
