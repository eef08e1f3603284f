public import MirrorCache
public import NIOHTTP1

/// What a cache needs to hold a saved response again, besides its status and body: the
/// headers as stored, when it was requested and received (its age), and its Vary key.
/// The manifest keeps one per URL, so a bundle can reload the exact original responses.
public struct ResponseRecord: Sendable, Codable, Equatable {
    /// Header fields in order, each `[name, value]`.
    public var headers: [[String]]
    public var requestTime: Double
    public var responseTime: Double
    /// The request's values of the fields named by Vary (`CachePolicy.varyKey`).
    public var varyKey: String

    public init(headers: HTTPHeaders, requestTime: Double, responseTime: Double, varyKey: String) {
        self.headers = headers.map { [$0.name, $0.value] }
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.varyKey = varyKey
    }

    /// The record of a response: its stored entry's, or (for a response the cache did not
    /// keep) its own headers received `now`.
    public init(_ response: CacheResponse, now: Double) {
        if let entry = response.entry {
            self.init(headers: entry.headers, requestTime: entry.requestTime, responseTime: entry.responseTime,
                      varyKey: entry.varyKey)
        } else {
            self.init(headers: response.headers, requestTime: now, responseTime: now, varyKey: "")
        }
    }

    public var httpHeaders: HTTPHeaders {
        HTTPHeaders(headers.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil })
    }

    /// The cache's head for this record with `status`.
    public func head(status: Int) -> CachedResponseHead {
        CachedResponseHead(status: status, headers: httpHeaders, requestTime: requestTime, responseTime: responseTime)
    }
}
