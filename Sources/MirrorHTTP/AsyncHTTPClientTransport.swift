import AsyncHTTPClient
public import MirrorCache
import NIOCore
import NIOHTTP1
import NIOPosix

/// The event loops a transport's connections live on.
public enum TransportEventLoops: Sendable {
    /// NIO's shared loops, which the program's other servers and clients answer on too; the
    /// transport offers no executors, since work run there would hold loops others wait for.
    case shared
    /// Loops of the transport's own, one a core, offered as executors (`nearbyExecutors`) to a
    /// caller whose work should run beside its connections (a crawl's workers); they stop with
    /// the transport.
    case own
}

/// The real transport, on async-http-client: pooled keep-alive connections, TLS, timeouts.
/// Redirects are never followed here (the caller scope-checks every hop) and bodies are
/// not decompressed here (the caching client does it, with a size limit).
public final class AsyncHTTPClientTransport: HTTPTransport {
    /// The clients: one on the shared loops, or one on each own loop (on as many loops as
    /// connections are allowed per host, at most), its connections there. A request made on one
    /// of those loops goes out and is answered on it, without a hop between threads; one pool
    /// for all the loops placed a connection wherever a request was waiting when it grew, and a
    /// crawl found nearly all its reads on one core while the other waited.
    private let clients: [HTTPClient]
    /// The own loops, the first ones each with its client; empty on the shared loops.
    let loops: [any EventLoop]
    /// The loops of the transport's own (`TransportEventLoops.own`), nil on the shared ones.
    private let ownLoops: MultiThreadedEventLoopGroup?
    private let connectTimeout: Duration
    /// Why https cannot be used (no trust store), nil when it can.
    private let missingTrustStore: String?

    /// - Parameters:
    ///   - connectionsPerHost: the limit of open connections to one host, shared out between
    ///     the clients of the own loops.
    ///   - idleTimeout: how long a pooled connection may stay unused before it is closed.
    ///   - connectTimeout: how long to wait for a TCP (and TLS) connection.
    ///   - security: which HTTPS servers to trust.
    ///   - eventLoops: where the connections live, and whether the transport offers its loops as executors.
    public init(
        connectionsPerHost: Int = 8, idleTimeout: Duration = .seconds(30), connectTimeout: Duration = .seconds(10),
        security: TransportSecurity = TransportSecurity(), eventLoops: TransportEventLoops = .shared
    ) {
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: security.tlsConfiguration,
            redirectConfiguration: .disallow,
            timeout: .init(connect: TimeAmount(connectTimeout)),
            decompression: .disabled)
        configuration.connectionPool = .init(
            idleTimeout: TimeAmount(idleTimeout),
            concurrentHTTP1ConnectionsPerHostSoftLimit: connectionsPerHost)
        // A failed connection fails its requests at once: a refused certificate is final, and the
        // caller retries the rest with its own backoff (the pool would retry until the timeout).
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.httpVersion = .automatic
        // No spans: with the default (no-op) tracer the client still made one and filled in its
        // attributes for every request, 1 % of a crawl's CPU.
        configuration.tracing.tracer = nil
        switch eventLoops {
        case .shared:
            ownLoops = nil
            clients = [HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)]
            loops = []
            nearbyExecutors = []
        case .own:
            let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
            let loops = Array(group.makeIterator())
            ownLoops = group
            self.loops = loops
            // The connections a host may have are shared out between the clients, so that
            // together they open no more than one pool would.
            let count = min(loops.count, max(1, connectionsPerHost))
            clients = (0..<count).map { index in
                var own = configuration
                let share = connectionsPerHost / count + (index < connectionsPerHost % count ? 1 : 0)
                own.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(1, share)
                return HTTPClient(eventLoopGroupProvider: .shared(loops[index]), configuration: own)
            }
            nearbyExecutors = loops.map { EventLoopTaskExecutor($0) }
        }
        self.connectTimeout = connectTimeout
        missingTrustStore = security.missingTrustStore
    }

    /// One executor a loop, for loops of the transport's own, else none: a caller whose work runs
    /// on them (the crawl's workers) makes its requests without a hop between threads. That work
    /// holds its loop while it runs, as a thread of the global pool would be held.
    public let nearbyExecutors: [any TaskExecutor]

    /// The client whose connections live on the calling thread's loop; on a loop with no client
    /// of its own (more cores than connections allowed per host), the clients are taken in turn,
    /// loop by loop; for a caller on none of the loops, the first. Also sends, as they are, the
    /// uploads `CachingHTTPClient` passes the cache by.
    var client: HTTPClient {
        loops.firstIndex { $0.inEventLoop }.map { clients[$0 % clients.count] } ?? clients[0]
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        if let missingTrustStore, request.url.utf8.prefix(6).elementsEqual("https:".utf8) {
            throw TrustStoreMissing(url: request.url, reason: missingTrustStore)
        }
        let outgoing: HTTPClient.Request
        let response: TransportResponse
        do {
            outgoing = try HTTPClient.Request(
                url: request.url, method: request.method, headers: request.headers, body: request.body.map { .bytes($0) })
            do {
                response = try await execute(outgoing, timeout: request.timeout)
            } catch let error as HTTPClientError where error == .remoteConnectionClosed && Self.idempotent.contains(request.method) {
                // A server's keep-alive timeout can close a pooled connection just as a request goes
                // out on it, before any answer: an idempotent request is sent once more (RFC 9110
                // §9.2.2), on a fresh connection, as browsers do.
                response = try await execute(outgoing, timeout: request.timeout)
            }
        } catch {
            let explained = await CertificateInspector.explain(error, url: request.url, timeout: connectTimeout)
            throw ConnectionError(explained, url: request.url) ?? explained
        }
        return response
    }

    /// A body read by the loop's first turn after its head (a page served at once) is handed over
    /// whole, up to this size; a longer or slower one streams.
    static let wholeBodyLimit = 1 << 20

    /// Sends `request` through async-http-client's delegate interface (`ResponseCollector`) on
    /// the client of the calling thread's loop; a cancelled caller cancels the request. `timeout`
    /// bounds the wait for the response's head, as async-http-client's `execute(_:timeout:)`
    /// does: a large body streams on after it.
    private func execute(_ request: HTTPClient.Request, timeout: Duration) async throws -> TransportResponse {
        let client = self.client
        let answer = client.eventLoopGroup.any().makePromise(of: TransportResponse.self)
        let collector = ResponseCollector(answer: answer, bufferLimit: Self.wholeBodyLimit)
        let task = client.execute(request: request, delegate: collector, eventLoop: .delegate(on: collector.loop))
        collector.cancel(task, ifNoHeadBy: .now() + TimeAmount(timeout))
        task.futureResult.whenFailure { collector.requestFailed($0) }
        return try await withTaskCancellationHandler {
            try await answer.futureResult.get()
        } onCancel: {
            task.cancel()
        }
    }

    private static let idempotent: [HTTPMethod] = [.GET, .HEAD, .OPTIONS, .TRACE, .PUT, .DELETE]

    /// Closes every pooled connection, then stops the transport's own loops; call once when done,
    /// from a task that does not run on them.
    public func shutdown() async throws {
        // A task on one of them would be resumed on a loop that has stopped, and never run again.
        precondition(!loops.contains { $0.inEventLoop }, "shutdown() on one of the transport's own loops")
        var failure: (any Error)?
        for client in clients {
            do { try await client.shutdown() } catch { failure = failure ?? error }
        }
        if let failure { throw failure }
        try await ownLoops?.shutdownGracefully()
    }

    /// A transport dropped without `shutdown()` (a caller leaving on an error) still closes its
    /// connections and stops its own loops: async-http-client keeps the client alive until they
    /// are closed, and a debug build no longer stops at the client's check that it was shut down
    /// before its deinit.
    deinit {
        Self.shutDown(clients[...], then: ownLoops)
    }

    /// Shuts the clients down one after the other, then the loops they were on.
    private static func shutDown(_ clients: ArraySlice<HTTPClient>, then loops: MultiThreadedEventLoopGroup?) {
        guard let client = clients.first else { return loops?.shutdownGracefully { _ in } ?? () }
        client.shutdown { _ in shutDown(clients.dropFirst(), then: loops) }
    }
}
