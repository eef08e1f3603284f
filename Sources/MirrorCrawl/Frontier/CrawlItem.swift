/// Why a URL is wanted: a page to crawl for links, or a requisite of a page.
public enum CrawlRole: String, Sendable, Codable {
    case page
    case requisite
}

/// One URL in the frontier.
public struct CrawlItem: Sendable, Equatable {
    /// Normalized absolute URL.
    public let url: String
    public let depth: Int
    public let role: CrawlRole
    /// Redirect hops taken to reach this URL.
    public let hops: Int
    public let referrer: String?

    public init(url: String, depth: Int, role: CrawlRole, hops: Int, referrer: String?) {
        self.url = url
        self.depth = depth
        self.role = role
        self.hops = hops
        self.referrer = referrer
    }

    /// `scheme://host:port`: the key of politeness.
    public var host: String { Frontier.host(of: url) }
}

/// What became of a URL the crawl handed out.
public enum CrawlOutcome: String, Sendable {
    case done, skipped, failed
}
