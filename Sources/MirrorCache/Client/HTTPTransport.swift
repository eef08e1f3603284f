public import NIOHTTP1

/// A request as the transport sends it: no redirects are followed, no caching is done.
public struct TransportRequest: Sendable {
    public var url: String
    public var method: HTTPMethod
    public var headers: HTTPHeaders
    public var body: [UInt8]?
    /// The whole exchange, from connecting to the last body byte.
    public var timeout: Duration

    public init(
        url: String, method: HTTPMethod = .GET, headers: HTTPHeaders = [:], body: [UInt8]? = nil,
        timeout: Duration = .seconds(30)
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// The transport's answer: status and headers at once, the body as it arrives.
public struct TransportResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    /// Chunks of the body exactly as received (still content-encoded).
    public var body: any AsyncSequence<[UInt8], any Error> & Sendable

    public init(status: Int, headers: HTTPHeaders, body: any AsyncSequence<[UInt8], any Error> & Sendable) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Sends one HTTP request over the network. `CachingClient` is the only caller; tests
/// may put a scripted transport behind this protocol.
public protocol HTTPTransport: Sendable {
    func send(_ request: TransportRequest) async throws -> TransportResponse

    /// The executors a caller's task may prefer so that its requests start on the threads
    /// their connections live on, with no hop between threads; empty when there are none. A
    /// transport that wraps another passes the inner one's on, or its callers lose them.
    var nearbyExecutors: [any TaskExecutor] { get }
}

extension HTTPTransport {
    public var nearbyExecutors: [any TaskExecutor] { [] }
}
