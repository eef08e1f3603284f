import Foundation
import MirrorCache
import MirrorHTTP
import MirrorHTTPServer
import MirrorLock
import MirrorProxy
import MirrorTestSupport

/// A `mirror proxy` in process, on a real socket, with its own cache folder; requests go to it
/// as exact bytes (`RawHTTPConnection`), as curl or a browser would send them.
struct ProxyHarness {
    let server: HTTPServer
    let store: CacheStore
    let transport: AsyncHTTPClientTransport
    let cacheFolder: String
    /// The request log, a line per answer.
    let log: RequestLog

    /// Starts a proxy; `cacheFolder` lets a second proxy (say, a replay) use what a first one recorded.
    /// `connectionsPerHost: 1` and a long `idleTimeout` make every request to the origin reuse
    /// one kept-alive connection, however slowly a loaded run goes.
    static func start(
        _ configuration: ProxyConfiguration, cacheFolder: String? = nil,
        security: TransportSecurity = TransportSecurity(), connectionsPerHost: Int = 8,
        idleTimeout: Duration = .seconds(30),
        server adjust: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> ProxyHarness {
        let folder =
            cacheFolder
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("proxy-\(UUID().uuidString)").path
        let store = try CacheStore(directory: folder)
        let transport = AsyncHTTPClientTransport(connectionsPerHost: connectionsPerHost, idleTimeout: idleTimeout, security: security)
        // The proxy's wait for the origin, longer by the sanitizers' slowdown (`TestTiming`).
        var configuration = configuration
        configuration.cache.timeout = configuration.cache.timeout * TestTiming.scale
        let responder = ProxyResponder(configuration: configuration, store: store, transport: transport)
        var serverConfiguration = ServerConfiguration(port: 0)
        configuration.configureTunnels(&serverConfiguration)
        adjust(&serverConfiguration)
        let log = RequestLog()
        let server = try await HTTPServer.start(serverConfiguration, responder: responder) { log.append($0.description) }
        return ProxyHarness(server: server, store: store, transport: transport, cacheFolder: folder, log: log)
    }

    /// A reverse proxy for `origin`.
    static func reverse(
        _ origin: TestOrigin, mode: RecordingMode = .record,
        cacheFolder: String? = nil, connectionsPerHost: Int = 8, idleTimeout: Duration = .seconds(30),
        adjust: (inout ProxyConfiguration) -> Void = { _ in }
    ) async throws -> ProxyHarness {
        var configuration = ProxyConfiguration(mode: mode, upstream: origin.baseURL)
        adjust(&configuration)
        return try await start(
            configuration, cacheFolder: cacheFolder, connectionsPerHost: connectionsPerHost,
            idleTimeout: idleTimeout)
    }

    var port: Int { server.port }

    /// How long one exchange through a proxy may take in a test: 150 s, not 60, since in a full
    /// run on two cores the answer, which crosses the cooperative pool several times, has taken
    /// longer than 60 s behind the other suites (all of them start at once). Scaled by
    /// `TestTiming` under the sanitizers.
    static let exchangeSeconds = Int64(TestTiming.seconds(150))

    /// Sends `request` as written (its lines joined with CRLF, a blank line added) and reads one response.
    func send(_ lines: [String], body: String = "", headOnly: Bool = false) async throws -> RawHTTPResponse {
        let port = self.port
        let message = lines.joined(separator: "\r\n") + "\r\n\r\n" + body
        return try await RawHTTPConnection.run {
            let connection = try RawHTTPConnection(port: port, timeout: Double(Self.exchangeSeconds))
            try connection.send(message)
            return try connection.readResponse(headOnly: headOnly)
        }
    }

    /// A simple request with `Host` and `Connection: close`, plus `headers`.
    func request(_ method: String = "GET", _ target: String, headers: [String] = [], body: String = "") async throws -> RawHTTPResponse {
        var lines = ["\(method) \(target) HTTP/1.1", "Host: 127.0.0.1:\(port)", "Connection: close"] + headers
        if !body.isEmpty { lines.append("Content-Length: \(body.utf8.count)") }
        return try await send(lines, body: body, headOnly: method == "HEAD")
    }

    /// Stops the proxy and removes its cache folder, unless another proxy is to use it.
    func stop(keepingCache: Bool = false) async {
        await server.shutdown()
        try? await transport.shutdown()
        if !keepingCache { try? FileManager.default.removeItem(atPath: cacheFolder) }
    }
}

/// The lines a server logged.
final class RequestLog: Sendable {
    private let lines = Locked<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }

    /// Whether a line satisfying `predicate` is logged within 30 s: a line is logged once its
    /// response is written, which the client may read first.
    func eventually(_ predicate: (String) -> Bool) async throws -> Bool {
        for _ in 0..<600 {
            if all.contains(where: predicate) { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }
}
