import Foundation
import Testing

@testable import MirrorBrowser

/// What a reader sees of a page in a plain headless Chromium (no proxy, nothing of the crawl's):
/// its text, the images that loaded, and the style its body got, after scrolling to the bottom
/// and back as a reader would.
struct PageView: Equatable, CustomStringConvertible {
    var title: String
    var text: String
    /// The file names of the images that loaded (naturalWidth > 0), sorted.
    var images: [String]
    /// The body's computed font family and background image (its file name).
    var bodyStyle: String

    var description: String { "\(title) | images \(images) | style \(bodyStyle) | text \(text.prefix(300))" }
}

/// One Chromium for viewing pages online and offline (`file://`).
final class PageViewer: Sendable {
    private let process: BrowserProcess

    private init(process: BrowserProcess) {
        self.process = process
    }

    /// Starts Chromium, sending every request to `proxy` when one is given; a missing browser
    /// fails the test saying how to install it.
    private static func start(proxy: String? = nil) async throws -> PageViewer {
        let executable = try BrowserTesting.executable()
        var arguments = [
            "--headless", "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--window-size=1280,800", "--allow-file-access-from-files",
        ]
        if getuid() == 0 { arguments.append("--no-sandbox") }
        if let proxy { arguments += ["--proxy-server=\(proxy)", "--proxy-bypass-list=<-loopback>"] }
        return PageViewer(process: try await BrowserProcess.launch(executable: executable, arguments: arguments))
    }

    func close() async {
        await process.terminate()
    }

    /// Starts a viewer as `start` does, runs `body` with it, and closes it afterwards, also when
    /// `body` throws (its error is rethrown then).
    static func with<T>(
        proxy: String? = nil, isolation: isolated (any Actor)? = #isolation,
        _ body: (PageViewer) async throws -> T
    ) async throws -> T {
        let viewer = try await start(proxy: proxy)
        do {
            let result = try await body(viewer)
            await viewer.close()
            return result
        } catch {
            await viewer.close()
            throw error
        }
    }

    /// The view of `url` once it settled: the same view twice in a row, 300 ms apart. The page's
    /// target is closed before this returns or throws.
    func view(_ url: String) async throws -> PageView {
        let devTools = process.devTools
        let created = try await devTools.call("Target.createTarget", ["url": "about:blank"])
        let target = try #require(created["targetId"]?.string)
        let view: Result<PageView, any Error>
        do {
            view = .success(try await settledView(url, target: target))
        } catch {
            view = .failure(error)
        }
        _ = try? await devTools.call("Target.closeTarget", ["targetId": .string(target)])
        return try view.get()
    }

    /// Opens `url` in `target` and reads its view until it settles.
    private func settledView(_ url: String, target: String) async throws -> PageView {
        let devTools = process.devTools
        let attached = try await devTools.call("Target.attachToTarget", ["targetId": .string(target), "flatten": true])
        let session = try #require(attached["sessionId"]?.string)
        try await devTools.call("Page.navigate", ["url": .string(url)], session: session)
        var last: PageView?
        for _ in 0..<40 {
            try await Task.sleep(for: .milliseconds(300))
            _ = try await evaluate(PageScripts.scrollToBottom, session: session)
            _ = try await evaluate(PageScripts.scrollToTop, session: session)
            let json = try await evaluate(Self.viewScript, session: session)
            let object = try JSONDecoder().decode([String: JSONValue].self, from: Data(json.utf8))
            let view = PageView(
                title: object["title"]?.string ?? "", text: object["text"]?.string ?? "",
                images: object["images"]?.array?.compactMap(\.string).sorted() ?? [], bodyStyle: object["style"]?.string ?? "")
            if object["complete"]?.bool == true, view == last { return view }
            last = view
        }
        return try #require(last)
    }

    private func evaluate(_ expression: String, session: String) async throws -> String {
        try await PageLoop.evaluate(expression, session: session, devTools: process.devTools, timeout: .seconds(30))
    }

    private static let viewScript = """
        JSON.stringify({
          complete: document.readyState === 'complete',
          title: document.title,
          text: document.body ? document.body.innerText : '',
          images: Array.from(document.images).filter(i => i.complete && i.naturalWidth > 0).map(i => i.currentSrc.split('/').pop()),
          style: document.body ? getComputedStyle(document.body).fontFamily + ' ' + getComputedStyle(document.body).backgroundImage.split('/').pop() : ''
        })
        """
}

/// The browser the tests drive: `scripts/setup` installs Debian's `chromium`.
enum BrowserTesting {
    static func executable() throws -> String {
        do {
            return try BrowserExecutable.locate(nil)
        } catch {
            Issue.record("this test needs Chromium, which scripts/setup installs (sudo apt-get install chromium): \(error)")
            throw error
        }
    }

    /// A renderer for crawls. Its page timeout is long by default: the whole test run shares two
    /// cores, and a starved Chromium takes seconds for what takes it 100 ms alone.
    static func renderer(pageTimeout: Duration = .seconds(60), maxRequestsPerPage: Int = 2000) async throws -> ChromiumRenderer {
        var settings = ChromiumRenderer.Settings(executable: try executable())
        settings.pageTimeout = pageTimeout
        settings.maxRequestsPerPage = maxRequestsPerPage
        return try await ChromiumRenderer.start(settings)
    }
}

/// Every suite that starts a browser, one test at a time: a Chromium takes a core and more than
/// a gigabyte, and the rest of the run shares the machine with it.
@Suite(.serialized) enum BrowserSuites {}
