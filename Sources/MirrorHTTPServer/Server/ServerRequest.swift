public import NIOCore
public import NIOHTTP1

/// A request as the server received it: the head, and the body collected up to the limit.
public struct ServerRequest: Sendable {
    public var head: HTTPRequestHead
    public var body: ByteBuffer?
    /// The client's address, for the log.
    public var remoteAddress: SocketAddress?

    public init(head: HTTPRequestHead, body: ByteBuffer? = nil, remoteAddress: SocketAddress? = nil) {
        self.head = head
        self.body = body
        self.remoteAddress = remoteAddress
    }

    public var method: HTTPMethod { head.method }
    public var headers: HTTPHeaders { head.headers }

    /// The request target without its query (for origin-form targets, the path).
    public var path: Substring {
        let target = head.uri[...]
        return target.firstIndex(of: "?").map { target[..<$0] } ?? target
    }

    /// The query, without its `?`; nil when the target has none.
    public var query: Substring? {
        let target = head.uri[...]
        return target.firstIndex(of: "?").map { target[target.index(after: $0)...] }
    }
}
