import NIOCore
import NIOHTTP1

/// Inside an intercepted tunnel requests name only a path; this makes their targets the absolute
/// `https://host[:port]/path` they are for, so the responder sees a forward proxy's request.
final class InterceptedTarget: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    private let origin: String

    init(host: String, port: Int) {
        let name = host.contains(":") ? "[\(host)]" : host
        origin = port == 443 ? "https://\(name)" : "https://\(name):\(port)"
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data), head.uri.hasPrefix("/") else { return context.fireChannelRead(data) }
        head.uri = origin + head.uri
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }
}
