public import NIOCore
public import NIOHTTP1

/// A response for the server to send: status, headers and a body that is empty, in memory,
/// a range of an open file, or produced piece by piece (a bundle's file, a proxied download)
/// with the client's pace.
public struct ServerResponse: Sendable {
    public enum Body: Sendable {
        case empty
        case bytes(ByteBuffer)
        /// A range of an open file, which the kernel sends (`sendfile`) without copying it
        /// through the server (on a connection the server encrypts, a `mirror proxy --mitm`
        /// tunnel, it is read in pieces instead); the server closes the handle once the
        /// response is done or abandoned.
        case file(NIOFileHandle, Range<Int>)
        /// Produces the body through the writer; each write waits while the client is behind,
        /// and throws once it has gone, so a stream never runs ahead of its reader.
        case stream(@Sendable (ResponseBodyWriter) async throws -> Void)
    }

    public var status: HTTPResponseStatus
    public var headers: HTTPHeaders
    public var body: Body
    /// A word for the request log (not sent), such as how the response was found.
    public var logNote: String?

    public init(status: HTTPResponseStatus, headers: HTTPHeaders = [:], body: Body = .empty, logNote: String? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.logNote = logNote
    }

    /// A short plain-text (or other `contentType`) response with its length set.
    public static func text(
        _ status: HTTPResponseStatus, _ text: String,
        contentType: String = "text/plain; charset=utf-8"
    ) -> ServerResponse {
        let buffer = ByteBuffer(string: text)
        return ServerResponse(
            status: status,
            headers: ["Content-Type": contentType, "Content-Length": String(buffer.readableBytes)],
            body: .bytes(buffer))
    }
}

/// Hands a streamed body's pieces to the connection.
public struct ResponseBodyWriter: Sendable {
    let send: @Sendable (ByteBuffer) async throws -> Void

    public func write(_ buffer: ByteBuffer) async throws {
        try await send(buffer)
    }
}
