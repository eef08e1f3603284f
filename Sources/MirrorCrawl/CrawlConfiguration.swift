public import MirrorCore
public import NIOHTTP1

/// Everything `mirror crawl` can be told, as values the crawler checks.
public struct CrawlConfiguration: Sendable {
    public var seeds: [String]
    /// Links followed from the seeds (seeds are depth 0); nil for no limit.
    public var maxDepth: Int?
    public var maxPages: Int?
    /// Stop fetching once this many body bytes were received.
    public var maxBytes: Int?
    /// Stop starting new requests after this long.
    public var maxDuration: Duration?
    /// Hosts crawled besides the seeds' own.
    public var allowedHosts: [HostPattern] = []
    /// When not empty, a page's URL must match one of these.
    public var include: [URLPattern] = []
    /// A URL matching one of these is never fetched.
    public var exclude: [URLPattern] = []
    /// Fetch images, CSS, scripts, fonts and frames of in-scope pages from any host.
    public var requisites = true
    public var concurrency = 8
    public var perHost = 4
    /// Seconds between two requests to one host (robots Crawl-delay wins when longer).
    public var delay: Double?
    public var obeyRobots = true
    public var sitemaps = false
    public var userAgent = "mirror/0.1 (+offline snapshots)"
    public var headers: HTTPHeaders = [:]
    public var retries = 2
    public var maxFileSize: Int?
    /// Make the folder's search index (`SearchIndexBuilder`) when it is finished, from the text
    /// read in the same parse as each page's links.
    public var searchIndex = true
    /// Keep the live and offline screenshots of `--browser`'s offline check in the folder's
    /// `.mirror/checks/`.
    public var keepsCheckScreenshots = false
    // Trap defences.
    public var maxURLLength = 2048
    /// A path segment repeated more than this many times marks a trap (/a/a/a/…).
    public var maxRepeatedSegments = 3
    public var maxPagesPerHost: Int?
    /// Query (or `;name=` path) parameters that look like session ids: URLs that differ only
    /// in them are one page, fetched once (by the first of them); later variants are skipped.
    public var sessionParameters: Set<String> = ["phpsessid", "jsessionid", "sid", "sessionid", "session_id", "aspsessionid"]
    /// Query parameters removed before URLs are compared (e.g. utm_*).
    public var ignoredParameters: [URLPattern] = []

    public init(seeds: [String]) {
        self.seeds = seeds
    }
}
