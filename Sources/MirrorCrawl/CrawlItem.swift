/// Why a URL is wanted: a page to crawl for links, or a requisite of a page.
public enum CrawlRole: String, Sendable, Codable {
    case page
    case requisite
}

/// One URL in the frontier.
struct CrawlItem: Sendable, Equatable {
    /// Normalized absolute URL.
    let url: String
    let depth: Int
    let role: CrawlRole
    /// Redirect hops taken to reach this URL.
    let hops: Int
    let referrer: String?
}
