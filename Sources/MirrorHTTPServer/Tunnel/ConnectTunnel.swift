import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// Answers `CONNECT host:port` by opening a TCP connection there and, after the 200, taking the
/// HTTP handlers out of the client's pipeline and gluing the two connections together, so
/// that bytes (usually TLS) pass through unread. With an interceptor, it answers the TLS itself
/// and passes the requests inside to the responder instead. Other requests go on to the responder.
final class ConnectTunnel: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let configuration: ServerConfiguration
    private let log: (@Sendable (RequestLogLine) -> Void)?
    private var request: (head: HTTPRequestHead, started: ContinuousClock.Instant)?
    private var target: (host: String, port: Int)?
    private var isTunnelling = false

    init(configuration: ServerConfiguration, log: (@Sendable (RequestLogLine) -> Void)?) {
        self.configuration = configuration
        self.log = log
    }

    private var interceptor: (any TunnelInterceptor)? { configuration.tunnelInterceptor }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if case .head(let head) = part, head.method == .CONNECT {
            isTunnelling = true
            request = (head, .now)
            target = Self.authority(head.uri)
            return
        }
        guard isTunnelling else { return context.fireChannelRead(data) }
        guard case .end = part else { return }  // a CONNECT body has no meaning
        guard let (host, port) = target else {
            return refuse(context, .custom(code: 400, reasonPhrase: "CONNECT wants host:port"))
        }
        if let interceptor { return intercept(context, host: host, port: port, with: interceptor) }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        ClientBootstrap(group: context.eventLoop)
            .connectTimeout(configuration.tunnelConnectTimeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connect(host: host, port: port)
            .whenComplete { result in
                let (tunnel, context) = loopBound.value
                switch result {
                case .success(let peer): tunnel.join(context, to: peer)
                case .failure(let error):
                    let reason = "Cannot connect to \(host):\(port) (\(error))".filter { $0.isASCII && !$0.isNewline }
                    tunnel.refuse(context, .custom(code: 502, reasonPhrase: reason))
                }
            }
    }

    /// Sends the 200, then leaves only the glue between the two connections, and an idle timer:
    /// every byte either way is read or written on the client's connection.
    private func join(_ context: ChannelHandlerContext, to peer: any Channel) {
        let idleTimeout = configuration.tunnelIdleTimeout
        established(context) { pipeline, tunnel in
            let (local, remote) = GlueHandler.matchedPair()
            let idle = IdleStateHandler(allTimeout: idleTimeout)
            try pipeline.addHandler(idle, position: .after(tunnel))
            try pipeline.addHandler(local, position: .after(idle))
            try peer.pipeline.syncOperations.addHandler(remote)
        } failed: {
            peer.close(promise: nil)
        }
    }

    /// Sends the 200, then answers the client's TLS with a certificate for `host` and reads the
    /// HTTP inside with a fresh codec, its targets made absolute for the responder.
    private func intercept(_ context: ChannelHandlerContext, host: String, port: Int, with interceptor: any TunnelInterceptor) {
        let tls: NIOSSLContext
        do {
            tls = try interceptor.serverContext(forHost: host)
        } catch {
            return refuse(context, .custom(code: 502, reasonPhrase: "No certificate for \(host)"))
        }
        let (headerTimeout, stallTimeout) = (configuration.headerTimeout, configuration.stallTimeout)
        established(context) { pipeline, tunnel in
            let decryption = NIOSSLServerHandler(context: tls)
            try pipeline.addHandler(decryption, position: .first)
            try pipeline.configureHTTPServerPipeline(
                position: .after(decryption), withPipeliningAssistance: false,
                withErrorHandling: false)
            try pipeline.addHandler(
                ConnectionDeadline(headerTimeout: headerTimeout, stallTimeout: stallTimeout),
                position: .before(tunnel))
            try pipeline.addHandler(InterceptedTarget(host: host, port: port), position: .after(tunnel))
        } failed: {
        }
    }

    /// Sends the 200, takes the HTTP handlers and timeouts out of the pipeline, lets `next` add
    /// what the tunnel needs, and removes this handler.
    private func established(
        _ context: ChannelHandlerContext,
        _ next: @escaping (ChannelPipeline.SynchronousOperations, ConnectTunnel) throws -> Void,
        failed: @escaping () -> Void
    ) {
        let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: ["Content-Length": "0"])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        logRequest(context, status: 200, note: interceptor == nil ? "tunnel" : "intercepted")
        let loopBound = NIOLoopBound((self, context, next, failed), eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            let (tunnel, context, next, failed) = loopBound.value
            do {
                let pipeline = context.pipeline.syncOperations
                for handler in Self.httpHandlers(pipeline) { pipeline.removeHandler(context: handler, promise: nil) }
                try next(pipeline, tunnel)
                pipeline.removeHandler(tunnel, promise: nil)
            } catch {
                failed()
                context.close(promise: nil)
            }
        }
    }

    /// The HTTP codec and its header validator, as `configureHTTPServerPipeline` set them up,
    /// and the request timeouts: none has a place in a tunnel.
    private static func httpHandlers(_ pipeline: ChannelPipeline.SynchronousOperations) -> [ChannelHandlerContext] {
        [
            try? pipeline.context(handlerType: HTTPResponseEncoder.self),
            try? pipeline.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self),
            try? pipeline.context(handlerType: NIOHTTPResponseHeadersValidator.self),
            try? pipeline.context(handlerType: ConnectionDeadline.self),
        ].compactMap { $0 }
    }

    /// Answers the CONNECT with an error and closes: after a CONNECT the connection carries no
    /// more requests. The reason phrase says why: NIOHTTP1 sends no body in a CONNECT response.
    private func refuse(_ context: ChannelHandlerContext, _ status: HTTPResponseStatus) {
        let head = HTTPResponseHead(version: .http1_1, status: status, headers: ["Connection": "close"])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        logRequest(context, status: Int(status.code), note: status.reasonPhrase)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    private func logRequest(_ context: ChannelHandlerContext, status: Int, note: String) {
        guard let log, let (head, started) = request else { return }
        log(
            RequestLogLine(
                client: context.channel.remoteAddress, method: head.method, target: head.uri, status: status,
                bytes: 0, duration: .now - started, note: note))
    }

    /// `host:port` or `[v6]:port` from a CONNECT target.
    static func authority(_ target: String) -> (host: String, port: Int)? {
        guard let colon = target.lastIndex(of: ":"), let port = Int(target[target.index(after: colon)...]),
            (1...65535).contains(port)
        else { return nil }
        var host = target[..<colon]
        if host.hasPrefix("[") && host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        return host.isEmpty ? nil : (String(host), port)
    }
}
