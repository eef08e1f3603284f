import MirrorCore
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// Performs what `ConnectionStateMachine` decides for one connection: reads, asks the
/// responder, writes each response.
///
/// A channel handler rather than a task per connection: a response the responder can make at
/// once (`respondImmediately`: from memory, or a file the kernel sends) is written on the event
/// loop without leaving it; only the others go through a task. The state machine answers
/// pipelined and unreadable requests, which replaces NIO's `HTTPServerPipelineHandler` and
/// `HTTPServerProtocolErrorHandler`, two handlers that every part of every response passed
/// through (6 % of the requests a folder serves per second).
final class ConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let configuration: ServerConfiguration
    private let responder: any HTTPResponder
    private let log: (@Sendable (RequestLogLine) -> Void)?
    private var machine: ConnectionStateMachine

    init(configuration: ServerConfiguration, responder: any HTTPResponder, log: (@Sendable (RequestLogLine) -> Void)?) {
        self.configuration = configuration
        self.responder = responder
        self.log = log
        machine = ConnectionStateMachine(
            maxTargetBytes: configuration.maxTargetBytes,
            maxRequestBodyBytes: configuration.maxRequestBodyBytes)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        perform(machine.arrived(.part(unwrapInboundIn(data))), context)
    }

    func read(context: ChannelHandlerContext) {
        perform(machine.readRequested(), context)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError else { return context.close(promise: nil) }
        perform(machine.arrived(.unreadable), context)
    }

    /// Performs `action`, and the ones that follow while responses end at once (made in memory,
    /// or small files): a loop, so that many pipelined requests do not deepen the stack.
    private func perform(_ action: ConnectionStateMachine.Action, _ context: ChannelHandlerContext) {
        var action = action
        while true {
            switch action {
            case .none:
                return
            case .read:
                return context.read()
            case .refuseUnreadable:
                return refuseUnreadable(context)
            case .respond(let request, let thenRead):
                let ended = respond(to: request, context)
                if thenRead { context.read() }
                guard let closes = ended else { return }  // it ends later, and goes on from there
                action = machine.responseEnded(closesConnection: closes)
            }
        }
    }

    /// Answers a request the decoder could not read (its head, or the bytes after a request),
    /// then closes.
    private func refuseUnreadable(_ context: ChannelHandlerContext) {
        let head = HTTPResponseHead(version: .http1_1, status: .badRequest, headers: ["Connection": "close", "Content-Length": "0"])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    /// Starts answering `request`. Returns whether the response closes the connection when
    /// its end is written already; nil when it ends later (`responseEnded` then goes on).
    private func respond(to request: ConnectionStateMachine.Request, _ context: ChannelHandlerContext) -> Bool? {
        let exchange = Exchange(request: request.head, started: .now, refused: request.refusal != nil)
        let served = ServerRequest(head: request.head, body: request.body, remoteAddress: context.channel.remoteAddress)
        if let response = request.refusal ?? responder.respondImmediately(to: served) {
            return send(response, exchange, context: context)
        }
        let responder = self.responder
        context.eventLoop.makeFutureWithTask { await responder.respond(to: served) }
            .assumeIsolated().whenSuccess { response in
                if let closes = self.send(response, exchange, context: context) { self.responseEnded(closes: closes, context) }
            }
        return nil
    }

    /// A response that ended later than it began: what waited goes on.
    private func responseEnded(closes: Bool, _ context: ChannelHandlerContext) {
        perform(machine.responseEnded(closesConnection: closes), context)
    }

    /// One request being answered: what the response and the log need of it.
    private struct Exchange {
        let request: HTTPRequestHead
        let started: ContinuousClock.Instant
        let refused: Bool
    }

    /// Writes `response`, then logs it and closes the connection when it must. Returns whether
    /// it closes the connection when its end is written already; nil when it ends later (or
    /// never: a body cut short closes the connection), and `responseEnded` goes on from there.
    private func send(_ response: ServerResponse, _ exchange: Exchange, context: ChannelHandlerContext) -> Bool? {
        var response = response
        let request = exchange.request
        // The responder may end the connection too (after a refused CONNECT, no request follows).
        let closes =
            exchange.refused || !request.isKeepAlive
            || HTTPList.members(response.headers["connection"]).contains { $0.lowercased() == "close" }
        if closes {
            response.headers.replaceOrAdd(name: "Connection", value: "close")
        } else if request.version.major == 1 && request.version.minor == 0 {
            response.headers.replaceOrAdd(name: "Connection", value: "keep-alive")
        }
        let code = response.status.code
        let hasBody = request.method != .HEAD && code != 304 && code != 204 && code >= 200
        if case .file(let handle, let range) = response.body, hasBody, configuration.tunnelsConnect,
            (try? context.pipeline.syncOperations.context(handlerType: NIOSSLServerHandler.self)) != nil
        {
            // Decrypted by an intercepting proxy (only a proxy's tunnels add TLS; the pipeline is
            // not searched for every file otherwise): the bytes must pass through here.
            response.body = Self.read(handle, range)
        }
        let finished = { (bytes: Int, complete: Bool) in
            self.log?(
                RequestLogLine(
                    client: context.channel.remoteAddress, method: request.method, target: request.uri,
                    status: Int(code), bytes: bytes, duration: .now - exchange.started,
                    note: response.logNote))
            if closes || !complete { context.close(promise: nil) }  // a body cut short must not look whole
        }
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: response.status, headers: response.headers))),
            promise: nil)
        switch response.body {
        case .file(let handle, let range):
            guard hasBody else {
                try? handle.close()
                end(context) { finished(0, $0) }
                return closes
            }
            let ended = { (context: ChannelHandlerContext) in
                self.end(context) { complete in
                    try? handle.close()
                    finished(complete ? range.count : 0, complete)
                }
            }
            guard range.count > Self.filePiece else {
                context.write(region(handle, range), promise: nil)
                ended(context)
                return closes
            }
            write(handle, range, context) { written in
                guard written else {
                    try? handle.close()
                    return finished(0, false)
                }
                ended(context)
                self.responseEnded(closes: closes, context)
            }
        case .bytes(let buffer) where hasBody:
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
            end(context) { finished(buffer.readableBytes, $0) }
            return closes
        case .stream(let produce) where hasBody:
            context.flush()
            let channel = context.channel
            let sent = NIOLockedValueBox(0)
            // Each piece waits until the previous one is in the kernel's hands: the client's pace.
            context.eventLoop.makeFutureWithTask {
                try await produce(
                    ResponseBodyWriter { buffer in
                        sent.withLockedValue { $0 += buffer.readableBytes }
                        try await channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(buffer))).get()
                    })
            }.assumeIsolated().whenComplete { result in
                let bytes = sent.withLockedValue { $0 }
                guard case .success = result else { return finished(bytes, false) }
                self.end(context) { finished(bytes, $0) }
                self.responseEnded(closes: closes, context)
            }
        case .empty, .bytes, .stream:
            end(context) { finished(0, $0) }
            return closes
        }
        return nil
    }

    /// The most bytes of a file handed to the kernel at once.
    static let filePiece = 1 << 20

    /// A file's range, for the kernel to send.
    private func region(_ handle: NIOFileHandle, _ range: Range<Int>) -> NIOAny {
        wrapOutboundOut(.body(.fileRegion(FileRegion(fileHandle: handle, readerIndex: range.lowerBound, endIndex: range.upperBound))))
    }

    /// Writes a file's range for the kernel to send in pieces of `filePiece` bytes, each written
    /// once the one before is sent, so that a slow download shows its progress
    /// (`ConnectionDeadline`) and a client that hangs up stops it. `then` learns whether the
    /// pieces before the last were all sent.
    private func write(
        _ handle: NIOFileHandle, _ range: Range<Int>, _ context: ChannelHandlerContext,
        then: @escaping (Bool) -> Void
    ) {
        let piece = range.lowerBound..<min(range.upperBound, range.lowerBound + Self.filePiece)
        guard piece.upperBound < range.upperBound else {
            context.write(region(handle, piece), promise: nil)
            return then(true)
        }
        let sent = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(region(handle, piece), promise: sent)
        sent.futureResult.assumeIsolated().whenComplete { result in
            guard case .success = result else { return then(false) }
            self.write(handle, piece.upperBound..<range.upperBound, context, then: then)
        }
    }

    /// A file's range read in pieces on the I/O threads, for a connection the kernel cannot send
    /// it on by itself (TLS); the handle is closed at the end.
    private static func read(_ handle: NIOFileHandle, _ range: Range<Int>) -> ServerResponse.Body {
        .stream { writer in
            defer { try? handle.close() }
            let io = NonBlockingFileIO(threadPool: .singleton)
            var offset = range.lowerBound
            while offset < range.upperBound {
                let piece = try await io.read(
                    fileHandle: handle, fromOffset: Int64(offset),
                    byteCount: min(64 << 10, range.upperBound - offset), allocator: ByteBufferAllocator())
                guard piece.readableBytes > 0 else { throw IOError(errnoCode: EIO, reason: "the file ended before its range") }
                offset += piece.readableBytes
                try await writer.write(piece)
            }
        }
    }

    /// Writes the response's end; `done` learns whether all of the response went out.
    private func end(_ context: ChannelHandlerContext, _ done: @escaping (Bool) -> Void) {
        let promise = context.eventLoop.makePromise(of: Void.self)
        promise.futureResult.assumeIsolated().whenComplete { result in
            if case .success = result { done(true) } else { done(false) }
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: promise)
    }
}
