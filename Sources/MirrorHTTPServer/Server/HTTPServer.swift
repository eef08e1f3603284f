import NIOConcurrencyHelpers
public import NIOCore
import NIOHTTP1
import NIOPosix

/// An HTTP/1.1 server on SwiftNIO: keep-alive, pipelining, streamed bodies with the client's
/// backpressure, and the limits of `ServerConfiguration`. What each request gets is up to its
/// `HTTPResponder`; `mirror serve` and `mirror proxy` share this server.
///
/// Each connection is served by a `ConnectionHandler` on its event loop. Accepting is not an
/// async sequence on purpose: there, one connection failing while it is set up (reset by a
/// flooding client, or over the limit) ends the sequence, and the server with it; here it only
/// closes that one.
public final class HTTPServer: Sendable {
    /// The address actually bound (with the port picked when 0 was asked for).
    public let localAddress: SocketAddress
    private let channel: any Channel
    private let open: NIOLockedValueBox<[ObjectIdentifier: any Channel]>

    private init(localAddress: SocketAddress, channel: any Channel, open: NIOLockedValueBox<[ObjectIdentifier: any Channel]>) {
        self.localAddress = localAddress
        self.channel = channel
        self.open = open
    }

    /// Binds and starts serving; returns once the server listens.
    /// - Parameter log: receives one line per request answered (nil: no log).
    public static func start(
        _ configuration: ServerConfiguration, responder: any HTTPResponder,
        log: (@Sendable (RequestLogLine) -> Void)? = nil
    ) async throws -> HTTPServer {
        let open = NIOLockedValueBox<[ObjectIdentifier: any Channel]>([:])
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.backlog, value: 512)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let key = ObjectIdentifier(channel)
                    let admitted = open.withLockedValue { open in
                        guard open.count < configuration.maxConnections else { return false }
                        open[key] = channel
                        return true
                    }
                    guard admitted else {
                        channel.close(promise: nil)
                        return
                    }
                    channel.closeFuture.whenComplete { _ in _ = open.withLockedValue { $0.removeValue(forKey: key) } }
                    try serve(channel.pipeline.syncOperations, configuration: configuration, responder: responder, log: log)
                }
            }
            .bind(host: configuration.host, port: configuration.port).get()
        guard let address = channel.localAddress else { throw HTTPServerError.noLocalAddress(host: configuration.host) }
        return HTTPServer(localAddress: address, channel: channel, open: open)
    }

    /// Sets up a connection's pipeline: the HTTP codec, the deadlines, the tunnel when CONNECT
    /// opens one, and the handler that answers the requests.
    static func serve(
        _ pipeline: ChannelPipeline.SynchronousOperations, configuration: ServerConfiguration,
        responder: any HTTPResponder, log: (@Sendable (RequestLogLine) -> Void)?
    ) throws {
        // `ConnectionHandler` answers pipelined and unreadable requests itself.
        try pipeline.configureHTTPServerPipeline(withPipeliningAssistance: false, withErrorHandling: false)
        try pipeline.addHandler(ConnectionDeadline(headerTimeout: configuration.headerTimeout, stallTimeout: configuration.stallTimeout))
        if configuration.tunnelsConnect {
            try pipeline.addHandler(ConnectTunnel(configuration: configuration, log: log))
        }
        try pipeline.addHandler(ConnectionHandler(configuration: configuration, responder: responder, log: log))
    }

    /// The port listened on.
    public var port: Int { localAddress.port ?? 0 }

    /// Client connections open now.
    public var openConnections: Int { open.withLockedValue { $0.count } }

    /// Stops listening and closes open connections.
    public func shutdown() async {
        try? await channel.close()
        for connection in open.withLockedValue({ Array($0.values) }) { try? await connection.close() }
    }

    /// Waits until the server stops listening (after `shutdown`, or when its socket fails).
    public func wait() async {
        try? await channel.closeFuture.get()
    }
}
