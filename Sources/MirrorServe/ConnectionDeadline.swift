import NIOCore
import NIOHTTP1

/// Closes a connection whose client makes no progress: a request head must arrive within
/// `headerTimeout` of the connection opening or of the previous response ending (an idle
/// keep-alive connection, or headers trickled a byte at a time), and while a request body
/// is read or a response is written, `stallTimeout` may not pass without a byte moving
/// (an `IdleStateHandler` ahead of the HTTP codec reports those stalls).
///
/// The head's deadline moves with every response, but its timer is not scheduled again each
/// time: one timer, checked when it fires, follows the latest deadline (scheduling and
/// cancelling a timer per request cost more than the rest of this handler).
final class ConnectionDeadline: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private enum State { case awaitingHead, readingBody, handling, responding }

    private let headerTimeout: TimeAmount
    private var state = State.awaitingHead
    /// When the awaited request head must have arrived by.
    private var headDeadline = NIODeadline.distantFuture
    private var headTimer: Scheduled<Void>?

    init(headerTimeout: TimeAmount) {
        self.headerTimeout = headerTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { armHeadTimer(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        armHeadTimer(context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        headTimer?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            state = .readingBody
        case .body: break
        case .end: state = .handling
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head: state = .responding
        case .body: break
        case .end:
            state = .awaitingHead
            armHeadTimer(context)
        }
        context.write(data, promise: promise)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent {
            let stalled = (idle == .write && state == .responding) || (idle == .read && state == .readingBody)
            if stalled { context.close(promise: nil) }
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func armHeadTimer(_ context: ChannelHandlerContext) {
        headDeadline = .now() + headerTimeout
        if headTimer == nil { scheduleHeadTimer(context) }
    }

    /// Closes the connection at `headDeadline` if no head came by then; follows a later deadline.
    private func scheduleHeadTimer(_ context: ChannelHandlerContext) {
        let deadline = headDeadline
        headTimer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            headTimer = nil
            guard state == .awaitingHead else { return }  // armed again when the response ends
            if headDeadline > deadline { return scheduleHeadTimer(context) }
            context.close(promise: nil)
        }
    }
}
