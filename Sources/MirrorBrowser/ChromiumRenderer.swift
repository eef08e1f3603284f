import Foundation
public import MirrorCrawl
public import MirrorCredentials
public import MirrorHTTPServer
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `mirror crawl --browser`: one headless Chromium, driven over its DevTools pipe, loading
/// `tabs` pages at once. Each tab has a browser context of its own whose proxy is an in-process
/// `PageProxy`, so every request a page makes goes through the crawl (`PageFetch`) and is
/// counted for that page alone; the browser-wide proxy refuses everything, so Chromium's own
/// background traffic reaches neither the network nor the cache. A browser that crashes is
/// started again and the page tried once more.
public actor ChromiumRenderer: PageRenderer {
    public struct Settings: Sendable {
        public var executable: String
        public var tabs = 2
        /// The most a page may take, from navigation to its DOM read.
        public var pageTimeout: Duration = .seconds(30)
        /// How long no request may be in flight for the page to count as idle.
        public var quietTime: Duration = .milliseconds(500)
        public var maxRequestsPerPage = 2000
        public var windowSize = (width: 1280, height: 800)
        /// Decrypts HTTPS for the proxies; its SPKI is trusted by this browser process alone.
        public var interception: (any TunnelInterceptor)?
        /// The base64 SHA-256 of the interception CA's SubjectPublicKeyInfo.
        public var interceptionSPKI: String?
        /// Each page's live screenshot and snapshot are taken, for the offline check
        /// (`checkOffline`).
        public var checksPages = false

        public init(executable: String) {
            self.executable = executable
        }
    }

    public let settings: Settings
    private let proxies: [PageProxy]
    private let servers: [HTTPServer]
    private let background: HTTPServer
    private var browser: RunningBrowser?
    private var launching: Task<RunningBrowser, any Error>?
    private var freeTabs: [Int]
    private var waiting: [CheckedContinuation<Int, Never>] = []
    private var closed = false

    private init(settings: Settings, proxies: [PageProxy], servers: [HTTPServer], background: HTTPServer) {
        self.settings = settings
        self.proxies = proxies
        self.servers = servers
        self.background = background
        freeTabs = Array(proxies.indices)
    }

    /// Starts the proxies and the browser: a browser that cannot start is an error now, before
    /// the crawl sends any request.
    public static func start(_ settings: Settings) async throws -> ChromiumRenderer {
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.tunnelsConnect = settings.interception != nil
        configuration.tunnelInterceptor = settings.interception
        let proxies = (0..<max(1, settings.tabs)).map { _ in PageProxy() }
        var servers: [HTTPServer] = []
        for proxy in proxies + [PageProxy()] {
            do {
                servers.append(try await HTTPServer.start(configuration, responder: proxy))
            } catch {
                for server in servers { await server.shutdown() }
                throw BrowserError.launchFailed("cannot start the browser's proxy on 127.0.0.1: \(error)")
            }
        }
        let renderer = ChromiumRenderer(settings: settings, proxies: proxies, servers: Array(servers.dropLast()), background: servers.last!)
        do {
            _ = try await renderer.runningBrowser(replacing: nil)
        } catch {
            await renderer.close()
            throw error
        }
        return renderer
    }

    /// The running browser's process id (nil when none runs).
    var browserProcessID: pid_t? { browser?.process.pid }

    /// Loads `url` in a free tab. With `cookies`, the tab's browser context holds the jar's
    /// cookies while the page loads (`document.cookie` and the page's scripts see the login) and
    /// what the page changed comes back into the jar once it has been read (`PageLoop`); nil
    /// leaves the context's cookies as they are (`mirror-browser-bench`).
    public func render(_ url: String, cookies: CookieJar? = nil, fetch: @escaping PageFetch) async throws -> RenderedPage {
        let tab = await takeTab()
        defer { returnTab(tab) }
        var failed: RunningBrowser?
        for attempt in 0..<2 {
            let browser = try await runningBrowser(replacing: failed)
            do {
                let context = try await browser.context(for: tab, proxyPort: servers[tab].port)
                return try await PageLoop(settings: settings).load(
                    url, cookies: cookies, fetch: fetch, in: browser, context: context,
                    proxy: proxies[tab])
            } catch {
                // Try the page once more; in another browser when this one ended (crashed).
                guard attempt == 0, !closed, !Task.isCancelled else { throw error }
                failed = browser.devTools.isClosed || browser.process.hasEnded ? browser : nil
            }
        }
        throw BrowserError.closed("unreachable")
    }

    /// Opens the copy at `fileURL` in a tab of its own browser context, whose proxy refuses
    /// everything (no network), and compares its screenshot with `live` (the closer of two
    /// openings when the first differs). A copy whose screenshot has another size than the live
    /// one counts every pixel as differing.
    public func compareOffline(_ fileURL: String, with live: [UInt8]) async throws -> ScreenComparison? {
        let tab = await takeTab()
        defer { returnTab(tab) }
        let browser = try await runningBrowser(replacing: nil)
        let context = try await browser.context(for: RunningBrowser.offlineSlot, proxyPort: background.port)
        let liveImage = try PNGImage(live)
        let pixels = liveImage.width * liveImage.height
        var best: ScreenComparison?
        // A copy unlike the live page is opened once more: its scripts may lay it out otherwise
        // from one opening to the next (Material for MkDocs' sidebar, now and then).
        for _ in 0..<2 where best.map({ !$0.identical }) ?? true {
            let (offline, unanswered) = try await PageLoop(settings: settings).screenshotOffline(
                fileURL, like: live, in: browser, context: context)
            // Chromium encodes the same pixels to the same bytes: most copies need no second decoding.
            let differing = offline == live ? 0 : try liveImage.differingPixels(from: PNGImage(offline)) ?? pixels
            if differing < best?.differing ?? .max {
                best = ScreenComparison(differing: differing, pixels: pixels, offline: offline, unanswered: unanswered)
            }
        }
        return best
    }

    /// The browser, launched when there is none or when `failed` is the one running.
    private func runningBrowser(replacing failed: RunningBrowser?) async throws -> RunningBrowser {
        if closed { throw BrowserError.closed("the browser was closed") }
        if let browser, browser !== failed, !browser.process.hasEnded { return browser }
        if let launching { return try await launching.value }
        let old = browser
        browser = nil
        let task = Task { [settings, background] in
            if let old { await old.process.terminate() }
            let process = try await BrowserProcess.launch(
                executable: settings.executable,
                arguments: Self.arguments(settings, backgroundPort: background.port))
            let running = RunningBrowser(process: process)
            do { try await running.start() } catch {
                await process.terminate()
                throw error
            }
            return running
        }
        launching = task
        defer { launching = nil }
        let running = try await task.value
        browser = running
        return running
    }

    static func arguments(_ settings: Settings, backgroundPort: Int) -> [String] {
        var arguments = [
            "--headless", "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--disable-default-apps", "--disable-extensions",
            "--disable-breakpad", "--disable-domain-reliability", "--disable-client-side-phishing-detection",
            "--metrics-recording-only", "--mute-audio", "--password-store=basic", "--use-mock-keychain",
            // Every tab renders as if in front: a page in a background tab gets no animation frames,
            // so scroll handlers would not run before its DOM is read.
            "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
            "--disable-backgrounding-occluded-windows",
            "--window-size=\(settings.windowSize.width),\(settings.windowSize.height)",
        ]
        // Whatever is not a page's goes to a proxy that refuses it.
        arguments += ["--proxy-server=http://127.0.0.1:\(backgroundPort)", "--proxy-bypass-list=<-loopback>"]
        if getuid() == 0 { arguments.append("--no-sandbox") }
        if let spki = settings.interceptionSPKI { arguments.append("--ignore-certificate-errors-spki-list=\(spki)") }
        return arguments
    }

    private func takeTab() async -> Int {
        if let tab = freeTabs.popLast() { return tab }
        return await withCheckedContinuation { waiting.append($0) }
    }

    private func returnTab(_ tab: Int) {
        if waiting.isEmpty { freeTabs.append(tab) } else { waiting.removeFirst().resume(returning: tab) }
    }

    public func close() async {
        closed = true
        if let launching { _ = try? await launching.value }
        if let browser { await browser.process.terminate() }
        browser = nil
        for server in servers + [background] { await server.shutdown() }
    }
}
