import Foundation
import MirrorCompression
import MirrorCore
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// An HTTP/1.1 origin server for tests, in process, on 127.0.0.1 and an ephemeral port.
///
/// It serves programmable routes first, then an optional fixture folder, and
/// logs every request. Start several for multi-host tests; each has its own port.
/// With a `tls` identity it speaks HTTPS (see `TestCertificateAuthority`).
///
///     let origin = try await TestOrigin.start(site: .named("plain"))
///     origin.route("/slow") { _ in var r = TestResponse.html("hi"); r.delay = .seconds(2); return r }
///     ... fetch origin.url("/") ...
///     #expect(origin.requests(path: "/").count == 1)
///     try await origin.shutdown()
public final class TestOrigin: Sendable {
    /// Answers one request.
    public typealias Handler = @Sendable (TestRequest) async -> TestResponse

    public let host: String
    public let port: Int
    /// `http` or `https`.
    public let scheme: String
    private let responder: OriginResponder
    private let serverTask: Task<Void, Never>
    private let serverChannel: any Channel

    private init(
        host: String, port: Int, scheme: String, responder: OriginResponder, serverChannel: any Channel,
        serverTask: Task<Void, Never>
    ) {
        self.host = host
        self.port = port
        self.scheme = scheme
        self.responder = responder
        self.serverChannel = serverChannel
        self.serverTask = serverTask
    }

    /// Starts a server on `host` (loopback only) and a port of its own (`TestPorts`); with `tls`,
    /// an HTTPS one.
    public static func start(host: String = "127.0.0.1", site: FixtureSite? = nil, tls: TestTLSIdentity? = nil) async throws -> TestOrigin {
        let responder = OriginResponder(site: site)
        var attempts = 0
        let server: NIOAsyncChannel<(NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, ArrivalStamps), Never>
        while true {
            do {
                server = try await listen(host: host, port: TestPorts.take(), responder: responder, tls: tls)
                break
            } catch let error as IOError where error.errnoCode == EADDRINUSE && attempts < 100 {
                attempts += 1  // another process's, or a client's: the next one
            }
        }
        let task = Task(executorPreference: OffPoolExecutor.shared) {
            await withDiscardingTaskGroup { group in
                try? await server.executeThenClose { connections in
                    for try await (connection, arrivals) in connections {
                        group.addTask { await responder.serve(connection, arrivals: arrivals) }
                    }
                }
                group.cancelAll()
            }
        }
        let port = server.channel.localAddress?.port ?? 0
        return TestOrigin(
            host: host, port: port, scheme: tls == nil ? "http" : "https", responder: responder,
            serverChannel: server.channel, serverTask: task)
    }

    private static func listen(
        host: String, port: Int, responder: OriginResponder, tls: TestTLSIdentity?
    ) async throws -> NIOAsyncChannel<(NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, ArrivalStamps), Never> {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .bind(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    responder.connections.withLockedValue { $0 += 1 }
                    if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls.context)) }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    let stamper = ArrivalStamper()
                    try channel.pipeline.syncOperations.addHandler(stamper)
                    return (
                        try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(
                            wrappingChannelSynchronously: channel), stamper.arrivals
                    )
                }
            }
    }

    /// Starts an origin as `start` does, runs `body` with it, and awaits `shutdown()` afterwards, also
    /// when `body` throws (its error is rethrown then): the origin is shut down before the test ends,
    /// whatever happens. Nest two calls for two origins.
    public static func with<T>(
        host: String = "127.0.0.1", site: FixtureSite? = nil, tls: TestTLSIdentity? = nil,
        isolation: isolated (any Actor)? = #isolation, _ body: (TestOrigin) async throws -> T
    ) async throws -> T {
        let origin = try await start(host: host, site: site, tls: tls)
        let result: T
        do {
            result = try await body(origin)
        } catch {
            try? await origin.shutdown()  // body's error is the one to report
            throw error
        }
        try await origin.shutdown()
        return result
    }

    /// `http://127.0.0.1:PORT` (or `https://…`)
    public var baseURL: String { "\(scheme)://\(host):\(port)" }

    /// `host:port`, as it appears in a Host header.
    public var authority: String { "\(host):\(port)" }

    /// The absolute URL of `path` on this origin.
    public func url(_ path: String) -> String { baseURL + path }

    /// Answers requests for `path` (exact match, query ignored) with `handler`; replaces an earlier route.
    public func route(_ path: String, _ handler: @escaping Handler) {
        responder.routes.withLockedValue { $0[path] = handler }
    }

    /// The connections accepted so far: with TLS, the handshakes begun, even those that failed.
    public var connections: Int { responder.connections.withLockedValue { $0 } }

    /// The requests this origin is answering now (a response still being sent counts).
    public var requestsInFlight: Int { responder.inFlight.withLockedValue { $0.now } }

    /// The most requests this origin was answering at one moment (a measure of a client's concurrency).
    public var peakRequestsInFlight: Int { responder.inFlight.withLockedValue { $0.peak } }

    /// Every request received so far, oldest first.
    public var requests: [TestRequest] { responder.log.withLockedValue { $0 } }

    /// The requests received for `path` (query ignored).
    public func requests(path: String) -> [TestRequest] { requests.filter { $0.path == path } }

    /// Holds the answers to every request received after the first `count` (counted in `requests`)
    /// until `releaseResponses()`; the requests are logged as they arrive.
    public func holdResponses(after count: Int) { responder.hold.hold(after: count) }

    /// Sends the held answers and stops holding.
    public func releaseResponses() { responder.hold.release() }

    /// Forgets the requests received so far.
    public func clearLog() { responder.log.withLockedValue { $0.removeAll() } }

    /// Stops listening and drops open connections; a second call does nothing more.
    public func shutdown() async throws {
        try? await serverChannel.close()
        responder.hold.release()
        serverTask.cancel()
        await serverTask.value
    }
}

/// Turns requests into responses on the wire; shared by all connections of one origin.
private struct OriginResponder: Sendable {
    let site: FixtureSite?
    let routes = NIOLockedValueBox<[String: TestOrigin.Handler]>([:])
    let log = NIOLockedValueBox<[TestRequest]>([])
    let connections = NIOLockedValueBox(0)
    let inFlight = NIOLockedValueBox((now: 0, peak: 0))
    let hold = ResponseHold()

    func serve(
        _ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>,
        arrivals: ArrivalStamps
    ) async {
        try? await connection.executeThenClose { inbound, outbound in
            var head: HTTPRequestHead?
            var arrival = Date()
            var body: [UInt8] = []
            var closesOnNextRequest = false
            for try await part in inbound {
                switch part {
                case .head(let requestHead):
                    head = requestHead
                    arrival = arrivals.withLockedValue { $0.isEmpty ? Date() : $0.removeFirst() }
                    body = []
                case .body(var buffer):
                    body += buffer.readBytes(length: buffer.readableBytes) ?? []
                case .end:
                    guard let requestHead = head else { continue }
                    let request = TestRequest(
                        method: requestHead.method, uri: requestHead.uri, headers: requestHead.headers,
                        body: body, time: arrival)
                    let received = log.withLockedValue {
                        $0.append(request)
                        return $0.count
                    }
                    if closesOnNextRequest { return }
                    await hold.wait(received: received)
                    inFlight.withLockedValue {
                        $0.now += 1
                        $0.peak = max($0.peak, $0.now)
                    }
                    defer { inFlight.withLockedValue { $0.now -= 1 } }
                    let response = await respond(to: request)
                    let keepAlive = try await write(response, for: request, to: outbound)
                    if !keepAlive || !requestHead.isKeepAlive { return }
                    closesOnNextRequest = response.closesConnectionOnNextRequest
                }
            }
        }
    }

    private func respond(to request: TestRequest) async -> TestResponse {
        if let handler = routes.withLockedValue({ $0[request.path] }) { return await handler(request) }
        return site?.response(for: request) ?? .status(404, "not found: \(request.path)\n")
    }

    /// Writes the response; false when the connection must close afterwards.
    private func write(
        _ original: TestResponse, for request: TestRequest,
        to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    ) async throws -> Bool {
        var response = original
        if let delay = response.delay { try await Task.sleep(for: delay) }
        if response.headers.first(name: "date") == nil {
            response.headers.add(name: "Date", value: HTTPDate.format(Int64(Date().timeIntervalSince1970)))
        }
        if response.honorsConditionals, response.status == 200,
            ConditionalRequest.isNotModified(request: request.headers, response: response.headers)
        {
            response = TestResponse(status: 304, headers: ConditionalRequest.notModifiedHeaders(from: response.headers))
        }
        if response.gzip {
            response.body = (try? GzipEncoder.compress(response.body)) ?? response.body
            response.headers.replaceOrAdd(name: "Content-Encoding", value: "gzip")
        }
        let hasBody =
            request.method != .HEAD && response.status != 304 && response.status != 204
            && !(100..<200).contains(response.status)
        if let chunkSize = response.chunkSize, hasBody, chunkSize > 0 {
            response.headers.remove(name: "content-length")
            response.headers.replaceOrAdd(name: "Transfer-Encoding", value: "chunked")
        } else if response.status != 304 && response.status != 204 {
            response.headers.replaceOrAdd(name: "Content-Length", value: String(response.body.count))
        }
        let head = HTTPResponseHead(
            version: .http1_1, status: HTTPResponseStatus(statusCode: response.status), headers: response.headers)
        try await outbound.write(.head(head))
        guard hasBody else {
            try await outbound.write(.end(nil))
            return true
        }
        let cut = response.closeAfterBodyBytes.map { min($0, response.body.count) }
        let bytes = response.body.prefix(cut ?? response.body.count)
        let step = max(1, response.chunkSize ?? bytes.count)
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let end = min(offset + step, bytes.endIndex)
            if end == bytes.endIndex, let gate = response.beforeLastChunk { await gate() }
            try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: bytes[offset..<end]))))
            offset = end
            if let pause = response.chunkDelay, offset < bytes.endIndex { try await Task.sleep(for: pause) }
        }
        if cut != nil { return false }  // die mid-body: close without finishing the message
        try await outbound.write(.end(nil))
        return true
    }
}

/// The arrival times of a connection's request heads not answered yet, oldest first.
private typealias ArrivalStamps = NIOLockedValueBox<[Date]>

/// Notes when each request head arrives, on the event loop. The task that answers it runs on
/// the cooperative pool, which a loaded test run may hold for a while: a test of a client's
/// spacing needs the arrival itself.
private final class ArrivalStamper: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    let arrivals = ArrivalStamps([])

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { arrivals.withLockedValue { $0.append(Date()) } }
        context.fireChannelRead(data)
    }
}
