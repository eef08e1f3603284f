public import NIOHTTP1

/// What the cache policy needs to know of a stored response: its status, headers,
/// and when the request that produced it was sent and its response received
/// (seconds since the epoch, the cache's own clock).
public struct CachedResponseHead: Sendable, Equatable {
    public var status: Int
    public var headers: HTTPHeaders
    public var requestTime: Double
    public var responseTime: Double

    public init(status: Int, headers: HTTPHeaders, requestTime: Double, responseTime: Double) {
        self.status = status
        self.headers = headers
        self.requestTime = requestTime
        self.responseTime = responseTime
    }
}
