public import MirrorCache
public import MirrorCredentials

/// Loads a saved HTML page the way a browser does (its scripts run, everything they request
/// goes through `fetch`) and says what the page became: `mirror crawl --browser`. The crawler
/// calls it for every page it saves, from each of its workers; the renderer bounds how many
/// pages load at once.
public protocol PageRenderer: Sendable {
    /// Loads `url`; each request the page makes is answered by `fetch`, which applies the
    /// crawl's rules (scope, robots.txt, politeness, credentials) and its cache.
    ///
    /// - Parameter cookies: the crawl's jar, shared with the browser for this page. Before the
    ///   page loads, the browser is given the jar's unexpired cookies (so `document.cookie` and
    ///   the page's scripts see the logged-in state; the requests themselves carry the crawl's
    ///   cookies whatever the browser holds, added by `fetch` for the crawl's own origins only).
    ///   After the page has settled and been read, the cookies the browser holds that the page
    ///   changed — set by its scripts with `document.cookie`, or by its responses — come back into
    ///   the jar as cookies no user gave. nil: the browser's cookies are left as they are. The
    ///   cookies never go into the `RenderedPage`, which is stored and shared.
    func render(_ url: String, cookies: CookieJar?, fetch: @escaping PageFetch) async throws -> RenderedPage
    /// Opens the saved copy at `fileURL` (a `file://` URL in the folder) with no network, as a
    /// visitor would open it, and compares it with `live`, a `RenderedPage.screenshot`, pixel by
    /// pixel; nil when this renderer cannot (it loads no page).
    func compareOffline(_ fileURL: String, with live: [UInt8]) async throws -> ScreenComparison?
    /// Ends the browser; `render` is not called again.
    func close() async
}

extension PageRenderer {
    public func compareOffline(_ fileURL: String, with live: [UInt8]) async throws -> ScreenComparison? { nil }
}

/// A page's offline copy against the live page, as screenshots of the same window.
public struct ScreenComparison: Sendable {
    /// The pixels that differ (in any channel), and all of them.
    public var differing: Int
    public var pixels: Int
    /// The copy's screenshot, a PNG.
    public var offline: [UInt8]
    /// The GET requests of the copy's scripts that its replay layer could not answer.
    public var unanswered: [String]

    public init(differing: Int, pixels: Int, offline: [UInt8], unanswered: [String] = []) {
        self.differing = differing
        self.pixels = pixels
        self.offline = offline
        self.unanswered = unanswered
    }

    public var identical: Bool { differing == 0 }
    public var share: Double { pixels == 0 ? 0 : Double(differing) / Double(pixels) }
}

/// The crawl's answer to one request a page makes in the browser.
public typealias PageFetch = @Sendable (CacheRequest) async -> PageFetchResult

public enum PageFetchResult: Sendable {
    case response(CacheResponse)
    /// Not fetched: out of scope, disallowed by robots.txt, or failed (the reason, for the page's notes).
    case refused(String)
}

/// What a page became in the browser. It holds no cookie: it is stored in a shared crawl's database.
public struct RenderedPage: Sendable, Codable {
    /// The targets of the rendered DOM's `a` and `area` links, absolute.
    public var links: [String] = []
    /// The targets of its frames and iframes, absolute.
    public var frames: [String] = []
    /// The URLs the page loaded with a successful response (its requisites, whatever asked for them).
    public var requested: [String] = []
    /// The rendered DOM, with its doctype and its scripts made inert: the copy when content came
    /// by `fetch`/XHR (which cannot work from `file://`), else the other form the offline check
    /// may try.
    public var snapshot: [UInt8]?
    /// The URLs of what the page's scripts fetched (fetch/XHR/EventSource): the replay layer of
    /// its original form answers them offline (`ReplayLayer`).
    public var data: [String] = []
    /// Which form the folder's copy of the page takes.
    public var form: CopyForm = .original
    /// The live page as a visitor sees it on opening it (the top of the window, its load and
    /// network settled, before any scrolling), as a PNG: what the offline check compares the copy
    /// with. Not recorded with the page.
    public var screenshot: [UInt8]?
    /// What happened that a person should know: the page timed out, opened a dialog or a window,
    /// navigated itself away, started a download, made too many requests.
    public var notes: [String] = []

    public init() {}

    /// The two forms a page's copy can take.
    public enum CopyForm: String, Sendable, Codable {
        /// The page's own bytes with links rewritten: its scripts run offline as they did online,
        /// with the replay layer answering what they fetched (`ReplayLayer`).
        case original
        /// `snapshot`, the rendered DOM with its scripts inert.
        case snapshot
    }

    private enum CodingKeys: String, CodingKey {
        case links, frames, requested, snapshot, form, notes, data
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        links = try container.decode([String].self, forKey: .links)
        frames = try container.decode([String].self, forKey: .frames)
        requested = try container.decode([String].self, forKey: .requested)
        snapshot = try container.decodeIfPresent([UInt8].self, forKey: .snapshot)
        // Recorded before there were two forms: a snapshot was always the copy.
        form = try container.decodeIfPresent(CopyForm.self, forKey: .form) ?? (snapshot == nil ? .original : .snapshot)
        notes = try container.decode([String].self, forKey: .notes)
        data = try container.decodeIfPresent([String].self, forKey: .data) ?? []
    }

}
