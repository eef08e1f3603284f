public import NIOHTTP1

/// A request to the caching client.
public struct CacheRequest: Sendable {
    public var url: String
    public var method: HTTPMethod
    public var headers: HTTPHeaders
    public var body: [UInt8]?
    /// A stored response received or revalidated at or after this time (seconds since 1970)
    /// answers without asking the origin, whatever its freshness. A crawl passes its start, so
    /// that after `kill -9` and `--resume` what it already fetched is not fetched again.
    public var reuseStoredSince: Double?
    /// A fingerprint of the credentials the request carries (a crawl's login), nil for none: what
    /// it receives is stored private to them, and only requests with the same fingerprint are
    /// answered from it (RFC 9111 §3.5). The fingerprint is kept in the cache, never the credentials.
    public var credentials: String?
    /// How the cache answers this request, when not as the client's configuration says (a
    /// URLRequest's `cachePolicy`).
    public var mode: CacheMode?

    public init(
        url: String, method: HTTPMethod = .GET, headers: HTTPHeaders = [:], body: [UInt8]? = nil,
        reuseStoredSince: Double? = nil, credentials: String? = nil, mode: CacheMode? = nil
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.reuseStoredSince = reuseStoredSince
        self.credentials = credentials
        self.mode = mode
    }
}

/// A response from the caching client. The body is always decoded (no Content-Encoding).
public struct CacheResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: ResponseBody
    public var outcome: CacheOutcome
    /// The stored entry behind the response, when there is one.
    public var entry: CacheEntry?
    /// A stored response was stale and the origin answered its validation with a new response
    /// (RFC 9211's `fwd=stale`, where a plain miss is `fwd=uri-miss`).
    public var replacedStale = false
    /// The response came from another, identical request's exchange (single flight): this request
    /// caused no exchange of its own (RFC 9211's `collapsed`).
    public var collapsed = false
    /// The `Set-Cookie` values of the exchange that brought this response (none from the store,
    /// which keeps none): for the caller's cookie jar, or a proxy's client. Never in `headers`.
    public var setCookies: [String] = []

    public init(status: Int, headers: HTTPHeaders, body: ResponseBody, outcome: CacheOutcome, entry: CacheEntry? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.outcome = outcome
        self.entry = entry
    }

    /// Whether the response is stored, or is being stored as its body streams.
    public var isStored: Bool {
        if entry != nil { return true }
        if case .growing = body.source { return true }
        return false
    }
}
