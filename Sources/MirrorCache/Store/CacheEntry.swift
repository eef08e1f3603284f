public import NIOHTTP1

/// One stored response: the key it answers, its head, and the body it points to.
public struct CacheEntry: Sendable, Equatable, Codable {
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

    public var head: CachedResponseHead {
        CachedResponseHead(status: status, headers: headers, requestTime: requestTime, responseTime: responseTime)
    }

    enum CodingKeys: String, CodingKey {
        case id, method, url, varyKey, status, headers, requestTime, responseTime, digest, size, lastAccess
    }

    public init(id: String, method: String, url: String, varyKey: String, status: Int, headers: HTTPHeaders,
                requestTime: Double, responseTime: Double, digest: String, size: Int, lastAccess: Double) {
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

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        method = try container.decode(String.self, forKey: .method)
        url = try container.decode(String.self, forKey: .url)
        varyKey = try container.decode(String.self, forKey: .varyKey)
        status = try container.decode(Int.self, forKey: .status)
        headers = HeaderCoding.decode(try container.decode(String.self, forKey: .headers))
        requestTime = try container.decode(Double.self, forKey: .requestTime)
        responseTime = try container.decode(Double.self, forKey: .responseTime)
        digest = try container.decode(String.self, forKey: .digest)
        size = try container.decode(Int.self, forKey: .size)
        lastAccess = try container.decode(Double.self, forKey: .lastAccess)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(method, forKey: .method)
        try container.encode(url, forKey: .url)
        try container.encode(varyKey, forKey: .varyKey)
        try container.encode(status, forKey: .status)
        try container.encode(HeaderCoding.encode(headers), forKey: .headers)
        try container.encode(requestTime, forKey: .requestTime)
        try container.encode(responseTime, forKey: .responseTime)
        try container.encode(digest, forKey: .digest)
        try container.encode(size, forKey: .size)
        try container.encode(lastAccess, forKey: .lastAccess)
    }
}
