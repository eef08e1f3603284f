import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP connection to a loopback server that sends exactly the bytes it is given — hostile
/// request targets, trickled headers, several requests at once — and reads what comes back,
/// for tests an HTTP client library would not let through unchanged. Blocking calls with a
/// receive timeout; run them off the cooperative pool (`RawHTTPConnection.run`).
public final class RawHTTPConnection: @unchecked Sendable {
    private let descriptor: Int32
    /// Bytes read past the response `readResponse` returned (the next pipelined response's).
    private var unread: [UInt8] = []

    /// Connects to 127.0.0.1:`port`; reads wait at most `timeout` seconds (long: a loaded test run
    /// can be slow, and a wait only ends early when the awaited bytes or close arrive).
    public init(port: Int, timeout: Double = TestTiming.seconds(60)) throws {
        descriptor = socket(AF_INET, streamSocket, 0)
        guard descriptor >= 0 else { throw Failure("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        // Not closed here: every property is set, so a throw now runs `deinit`, which closes it
        // (closing it twice closed the descriptor that another thread's socket had meanwhile
        // been given: NIO found its new server socket's number registered already and stopped).
        guard connected == 0 else { throw Failure("connect: \(String(cString: strerror(errno)))") }
        var wait = timeval()
        wait.tv_sec = .init(timeout)
        wait.tv_usec = .init((timeout - timeout.rounded(.down)) * 1e6)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { systemSend(descriptor, $0.baseAddress, $0.count) }
            guard sent > 0 else { throw Failure("send: \(String(cString: strerror(errno)))") }
            offset += sent
        }
    }

    /// Reads what arrives until `count` bytes or the end; nil bytes read means the server closed.
    public func receive(upTo count: Int = 1 << 20) throws -> [UInt8] {
        if !unread.isEmpty {
            let given = Array(unread.prefix(count))
            unread.removeFirst(given.count)
            return given
        }
        var buffer = [UInt8](repeating: 0, count: count)
        let got = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, count, 0) }
        guard got >= 0 else { throw Failure("recv: \(String(cString: strerror(errno)))") }
        return Array(buffer[0..<got])
    }

    /// Reads one response: the head, and the body its Content-Length announces (none for HEAD,
    /// 1xx, 204, 304). Bytes past it are kept for the next call (pipelined responses).
    public func readResponse(headOnly: Bool = false) throws -> RawHTTPResponse {
        var bytes: [UInt8] = []
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        while true {
            if let end = bytes.firstRange(of: separator) {
                var response = try RawHTTPResponse(head: Array(bytes[..<end.lowerBound]))
                let length =
                    headOnly || response.status == 304 || response.status == 204
                    ? 0 : Int(response.header("content-length") ?? "0") ?? 0
                var body = Array(bytes[end.upperBound...])
                while body.count < length {
                    let more = try receive(upTo: length - body.count)
                    guard !more.isEmpty else { throw Failure("closed after \(body.count) of \(length) body bytes") }
                    body += more
                }
                if body.count > length {
                    unread = Array(body[length...]) + unread
                    body.removeSubrange(length...)
                }
                response.body = body
                return response
            }
            let more = try receive(upTo: 64 << 10)
            guard !more.isEmpty else { throw Failure("closed before a whole response head (\(bytes.count) bytes)") }
            bytes += more
        }
    }

    /// Whether the server closed the connection: waits for the end of the stream (true) or the
    /// receive timeout (false), discarding anything it sends first.
    public func isClosedByServer() -> Bool {
        while true {
            var byte: UInt8 = 0
            let got = recv(descriptor, &byte, 1, 0)
            if got == 0 { return true }
            if got < 0 { return errno == ECONNRESET }
        }
    }

    /// Runs blocking socket work on a thread of its own, off Swift's cooperative pool.
    public static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }
}

/// A response read by `RawHTTPConnection`.
public struct RawHTTPResponse: Sendable {
    public let status: Int
    /// The reason phrase of the status line.
    public let reason: String
    public let headers: [(name: String, value: String)]
    public var body: [UInt8] = []

    init(head: [UInt8]) throws {
        let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        let statusLine = lines.first?.split(separator: " ") ?? []
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw RawHTTPConnection.Failure("not an HTTP response: \(lines.first ?? "")")
        }
        self.status = status
        reason = statusLine.dropFirst(2).joined(separator: " ")
        headers = lines.dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
    }

    /// The first value of a header (name case ignored).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public var text: String { String(decoding: body, as: UTF8.self) }
}

#if os(Linux)
let streamSocket = Int32(SOCK_STREAM.rawValue)
private func systemSend(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    send(descriptor, bytes, count, Int32(MSG_NOSIGNAL))
}
#else
let streamSocket = SOCK_STREAM
private func systemSend(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    send(descriptor, bytes, count, 0)
}
#endif
