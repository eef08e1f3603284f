public import NIOHTTP1

/// What a route answers: any status and headers, plus the ways real servers
/// misbehave (slow, chunked, compressed, dying mid-body).
public struct TestResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// Send the body with `Transfer-Encoding: chunked`, in chunks of this many bytes.
    public var chunkSize: Int?
    /// Wait this long before sending the response head.
    public var delay: Duration?
    /// Wait this long between body chunks (a slow server).
    public var chunkDelay: Duration?
    /// Awaited before the last body chunk is sent: a test holds the origin there until it has
    /// seen what must happen while the origin is still sending, instead of counting on timing.
    public var beforeLastChunk: (@Sendable () async -> Void)?
    /// Gzip the body and send `Content-Encoding: gzip`.
    public var gzip = false
    /// Announce the full length, send only this many body bytes, then close the connection.
    public var closeAfterBodyBytes: Int?
    /// Keep the connection open after this response, then close it unanswered when the next
    /// request arrives on it: a server's keep-alive timeout firing as a client reuses the connection.
    public var closesConnectionOnNextRequest = false
    /// Answer conditional requests with 304 when the validators match (on by default).
    public var honorsConditionals = true

    public init(status: Int = 200, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public init(status: Int = 200, headers: [(String, String)], body: String) {
        self.init(status: status, headers: HTTPHeaders(headers), body: Array(body.utf8))
    }

    /// A 200 HTML page.
    public static func html(_ text: String, headers: [(String, String)] = []) -> TestResponse {
        TestResponse(headers: [("Content-Type", "text/html; charset=utf-8")] + headers, body: text)
    }

    /// A 200 response of any type.
    public static func content(_ text: String, type: String, headers: [(String, String)] = []) -> TestResponse {
        TestResponse(headers: [("Content-Type", type)] + headers, body: text)
    }

    /// A redirect to `location` (301, 302, 303, 307 or 308).
    public static func redirect(to location: String, status: Int = 302) -> TestResponse {
        TestResponse(status: status, headers: [("Location", location)], body: "")
    }

    /// A plain-text error or empty response with the given status.
    public static func status(_ code: Int, _ text: String = "", headers: [(String, String)] = []) -> TestResponse {
        TestResponse(status: code, headers: [("Content-Type", "text/plain")] + headers, body: text)
    }

    /// Returns a copy with one more header.
    public func adding(_ name: String, _ value: String) -> TestResponse {
        var copy = self
        copy.headers.add(name: name, value: value)
        return copy
    }
}
