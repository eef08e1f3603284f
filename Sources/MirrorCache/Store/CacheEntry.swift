public import NIOHTTP1

/// One stored response: the key it answers, its head, and the body it points to.
public struct CacheEntry: Sendable, Equatable {
    /// Stable identifier: SHA-256 of the method, URL and Vary key.
    public var id: String
    public var method: String
    /// The normalized request URL.
    public var url: String
    /// The request's values of the fields named by the response's Vary (see `CachePolicy.varyKey`).
    public var varyKey: String
    public var status: Int
    /// End-to-end response headers, as stored.
    public var headers: HTTPHeaders
    public var requestTime: Double
    public var responseTime: Double
    /// Lower-case hex SHA-256 of the body.
    public var digest: String
    public var size: Int
    public var lastAccess: Double

    /// Obtained with credentials (or varying on one): found only by requests that carry the same.
    public var isPrivate: Bool {
        varyKey.contains(CachePolicy.privateMark) || varyKey.contains("=#")
    }

    /// The Vary key as it may leave the cache (`CachePolicy.shareable(varyKey:)`).
    public var shareableVaryKey: String { CachePolicy.shareable(varyKey: varyKey) }

    public var head: CachedResponseHead {
        CachedResponseHead(status: status, headers: headers, requestTime: requestTime, responseTime: responseTime)
    }

    public init(
        id: String, method: String, url: String, varyKey: String, status: Int, headers: HTTPHeaders,
        requestTime: Double, responseTime: Double, digest: String, size: Int, lastAccess: Double
    ) {
        self.id = id
        self.method = method
        self.url = url
        self.varyKey = varyKey
        self.status = status
        self.headers = headers
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.digest = digest
        self.size = size
        self.lastAccess = lastAccess
    }
}
