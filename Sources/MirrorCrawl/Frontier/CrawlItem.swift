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
    public var host: String { Self.host(of: url) }

    /// `scheme://host:port` of a normalized URL: the politeness key.
    static func host(of url: String) -> String {
        let bytes = url.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return url }
        let authorityStart = bytes.index(colon, offsetBy: 3, limitedBy: bytes.endIndex) ?? bytes.endIndex
        let end = bytes[authorityStart...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? bytes.endIndex
        return String(url[..<end])
    }
}

/// What became of a URL the crawl handed out.
public enum CrawlOutcome: String, Sendable {
    case done, skipped, failed
}
