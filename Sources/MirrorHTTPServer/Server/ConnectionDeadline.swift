import NIOCore
import NIOHTTP1

/// Closes a connection whose client makes no progress:
/// - a request head must arrive within `headerTimeout` of the connection opening or of the
///   previous response having been sent whole (an idle keep-alive connection, or headers
///   trickled a byte at a time);
/// - while a request body is read, `stallTimeout` may not pass without a part of it arriving;
/// - while a response is sent, `stallTimeout` may not pass without a write of it completing
///   (`ConnectionHandler` sends a large file in pieces, so that their completions show a slow
///   download's progress). A response that is being worked out has no limit here, nor has its
///   next piece once the pieces before it are sent: the server's own slowness (a piece being
///   inflated on a loaded machine) is not the client's stall. Requests read meanwhile
///   (pipelined) do not change that; once it is sent, the next one read whole is in hand, and
///   is being worked out.
///
/// One timer follows the current deadline: it checks the deadline when it fires and follows it
/// when it has moved on, rather than being cancelled and scheduled again for every request and
/// every write, which cost more than the rest of this handler. It is only scheduled again when
/// a deadline comes before it (a stall timeout shorter than the header timeout).
final class ConnectionDeadline: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// `responding`: a write of the response is on its way to the client; `producing`: all
    /// written so far has been sent, and the server works out what comes next.
    private enum State { case awaitingHead, readingBody, handling, responding, producing }

    private let headerTimeout: TimeAmount
    private let stallTimeout: TimeAmount
    private var state = State.awaitingHead
    /// When the connection is closed unless the state changes or progress moves it on.
    private var deadline = NIODeadline.distantFuture
    /// Responses begun: a completion that arrives after the next response has begun must not
    /// end that one's deadline.
    private var responses = 0
    /// Requests read whole. Pipelined requests are read while a response is sent (and wait in
    /// `ConnectionHandler`): those beyond `responses` are in hand, and no deadline is theirs.
    private var requests = 0
    /// A request's head was read and its end not yet.
    private var inRequest = false
    /// Writes of the current response's body whose completion was asked for and has not come.
    private var unsent = 0
    private var timer: Scheduled<Void>?
    /// When the timer fires.
    private var timerDue = NIODeadline.distantFuture

    init(headerTimeout: TimeAmount, stallTimeout: TimeAmount) {
        self.headerTimeout = headerTimeout
        self.stallTimeout = stallTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { enter(.awaitingHead, context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        enter(.awaitingHead, context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head, .body:
            inRequest = true
            if !isResponding && requests == responses { enter(.readingBody, context) }
        case .end:
            inRequest = false
            requests += 1
            if !isResponding { state = .handling }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head:
            // Its deadline starts with what follows it: the body (or the end) may take the
            // server a while to make.
            responses += 1
            unsent = 0
            state = .producing
        case .body:
            if state == .producing { enter(.responding, context) }
            if let promise {
                unsent += 1
                progress(of: promise, context) { $0.pieceSent(context) }
            }
        case .end:
            if state == .producing { enter(.responding, context) }
            let promise = promise ?? context.eventLoop.makePromise()
            progress(of: promise, context) { $0.responseSent(context) }
            context.write(data, promise: promise)
            return
        }
        context.write(data, promise: promise)
    }

    /// Calls `next` when `promise` succeeds, unless another response has begun meanwhile.
    private func progress(
        of promise: EventLoopPromise<Void>, _ context: ChannelHandlerContext,
        _ next: @escaping (ConnectionDeadline) -> Void
    ) {
        let response = responses
        promise.futureResult.assumeIsolated().whenSuccess { [self] in
            if isResponding && responses == response { next(self) }
        }
    }

    private var isResponding: Bool { state == .responding || state == .producing }

    /// A piece of the response has been sent: the client makes progress; when nothing else
    /// written is on its way, the server is working out what comes next.
    private func pieceSent(_ context: ChannelHandlerContext) {
        unsent -= 1
        if unsent > 0 { enter(.responding, context) } else { state = .producing }
    }

    /// A response has been sent whole: the next request is in hand, or being read, or awaited.
    private func responseSent(_ context: ChannelHandlerContext) {
        if requests > responses {
            state = .handling
        } else {
            enter(inRequest ? .readingBody : .awaitingHead, context)
        }
    }

    /// Enters `state` (again), with its full time from now.
    private func enter(_ state: State, _ context: ChannelHandlerContext) {
        self.state = state
        deadline = context.eventLoop.now + (state == .awaitingHead ? headerTimeout : stallTimeout)
        if timer == nil || deadline < timerDue {  // a stall's deadline can come before the head's
            timer?.cancel()
            schedule(context)
        }
    }

    /// Closes the connection at `deadline`, or follows it when it has moved on.
    private func schedule(_ context: ChannelHandlerContext) {
        let due = deadline
        timerDue = due
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: due) { [self] in
            timer = nil
            // Scheduled again when the response begins, or goes on.
            guard state != .handling && state != .producing else { return }
            if deadline > due { return schedule(context) }
            context.close(promise: nil)
        }
    }
}
