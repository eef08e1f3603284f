public import AsyncHTTPClient
public import MirrorCache
import MirrorCore
public import NIOCore
import NIOHTTP1

/// async-http-client with a `mirror` cache folder behind it: `execute(_:timeout:)` as
/// `HTTPClient` has it, each request answered through the folder in its `RecordingMode`
/// (recorded per RFC 9111 with validation, replayed from the folder alone, or passed
/// through), redirects followed as `HTTPClient` follows them, and bodies streamed as they
/// arrive. Uploads (a request with a body) go to the network uncached, as they are.
///
/// ```swift
/// let client = try CachingHTTPClient(folder: "Cache")
/// let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
/// ```
///
/// The folder is a normal `mirror` cache: `mirror cache ls`, `mirror serve` and
/// `mirror proxy --mode replay` read it, and many processes may share it.
public final class CachingHTTPClient: Sendable {
    /// How requests use the folder.
    public let mode: RecordingMode
    /// The engine that answers: its store is the folder.
    public let cache: CachingClient
    /// The most redirects followed for one request (`HTTPClient`'s default is 5); 0 returns them.
    public let maxRedirects: Int
    private let transport: AsyncHTTPClientTransport

    /// Opens (creating if needed) the cache in `folder`.
    /// - Parameters:
    ///   - folder: the cache folder, shared with any other process and `mirror` command.
    ///   - mode: record, replay or passthrough.
    ///   - configuration: the engine's policy, admission rules and limits; bodies always stream.
    ///   - maxRedirects: the most redirects followed for one request.
    ///   - security: which HTTPS servers to trust.
    public init(
        folder: String, mode: RecordingMode = .record, configuration: CachingClient.Configuration = .init(),
        maxRedirects: Int = 5, security: TransportSecurity = TransportSecurity()
    ) throws {
        self.mode = mode
        self.maxRedirects = maxRedirects
        transport = AsyncHTTPClientTransport(security: security)
        var engine = configuration
        engine.streamsBodies = true
        engine.mode = mode.cacheMode(recording: configuration.mode)
        cache = CachingClient(store: try CacheStore(directory: folder), transport: transport, configuration: engine)
    }

    /// The response to `request`, from the cache or the network, its head within `timeout`.
    /// Fails as `HTTPClient` does on too many redirects or a cycle of them, and with
    /// ``ReplayMiss`` on a request replay cannot answer.
    public func execute(_ request: HTTPClientRequest, timeout: TimeAmount) async throws -> HTTPClientResponse {
        let deadline = ContinuousClock.now + .nanoseconds(timeout.nanoseconds)
        var current = request
        var visited: Set<String> = [request.url]
        while true {
            let response = try await withDeadline(deadline, orThrow: { HTTPClientError.deadlineExceeded }) { [current] in
                try await self.answer(current, deadline: deadline)
            }
            guard maxRedirects > 0,
                let redirect = Redirect(
                    status: Int(response.status.code), location: response.headers.first(name: "location"), from: current.url,
                    method: current.method)
            else { return response }
            guard visited.count <= maxRedirects else { throw HTTPClientError.redirectLimitReached }
            guard visited.insert(redirect.url).inserted else { throw HTTPClientError.redirectCycleDetected }
            var next = HTTPClientRequest(url: redirect.url)
            next.method = redirect.method
            next.headers = redirect.headers(from: current.headers)
            if redirect.keepsBody { next.body = current.body }
            current = next
        }
    }

    /// Closes the network connections; call once when done.
    public func shutdown() async throws {
        try await transport.shutdown()
    }

    /// One exchange: an upload as it is, anything else through the cache.
    private func answer(_ request: HTTPClientRequest, deadline: ContinuousClock.Instant) async throws -> HTTPClientResponse {
        if request.body != nil && mode != .replay {
            return try await transport.client.execute(request, timeout: TimeAmount(deadline - .now))
        }
        guard request.body == nil else { throw ReplayMiss(url: request.url) }
        let response = try await cache.fetch(CacheRequest(url: request.url, method: request.method, headers: request.headers))
        if response.outcome == .offlineMiss && mode == .replay { throw ReplayMiss(url: request.url) }
        var headers = response.headers
        for cookie in response.setCookies { headers.add(name: "Set-Cookie", value: cookie) }
        let body = response.body.chunks().map { ByteBuffer(bytes: $0) }
        return HTTPClientResponse(status: HTTPResponseStatus(statusCode: response.status), headers: headers, body: .stream(body))
    }
}

/// A request that a replaying cache has no recording of (`RecordingMode.replay`).
public struct ReplayMiss: Error, Equatable, CustomStringConvertible {
    /// The request's URL.
    public let url: String

    public init(url: String) {
        self.url = url
    }

    /// The miss in words, with the URL.
    public var description: String { "Not in the cache folder, and the cache is replaying: \(url)" }
}
