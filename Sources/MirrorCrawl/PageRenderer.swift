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
    /// Ends the browser; `render` is not called again.
    func close() async
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
    /// The rendered DOM, with its doctype and its scripts made inert, when content came by
    /// `fetch`/XHR (which cannot work from `file://`); nil when the original page with its links
    /// rewritten shows the same offline.
    public var snapshot: [UInt8]?
    /// What happened that a person should know: the page timed out, opened a dialog or a window,
    /// navigated itself away, started a download, made too many requests.
    public var notes: [String] = []

    public init() {}
}
