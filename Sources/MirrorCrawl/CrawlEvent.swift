public import MirrorCache

/// What a crawl reports as it goes, for a log (`mirror crawl --verbose`).
public enum CrawlEvent: Sendable {
    /// A GET answered, by the cache or the origin.
    case request(url: String, status: Int, outcome: CacheOutcome, bytes: Int, milliseconds: Int)
    /// A phase of the crawl began.
    case phase(String)

    /// One line of the log.
    public var line: String {
        switch self {
        case .request(let url, let status, let outcome, let bytes, let milliseconds):
            return "GET \(url) \(status) \(outcome.rawValue) \(bytes) B \(milliseconds) ms"
        case .phase(let name):
            return "-- \(name)"
        }
    }
}
