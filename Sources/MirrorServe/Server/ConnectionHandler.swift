import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// Reads the requests of one connection in turn, asks the responder, writes each response.
///
/// A channel handler rather than a task per connection: a response the responder can make at
/// once (`respondImmediately`: from memory, or a file the kernel sends) is written on the event
/// loop without leaving it; only the others go through a task.
///
/// Requests sent without waiting for the answers (pipelining) are answered in order: what
/// arrives while a response is under way waits here, and no more is read until it is answered.
/// A request the decoder cannot read waits its turn too, then gets a 400 and the connection
/// ends; nothing after a response that closes the connection is answered. This replaces NIO's
/// `HTTPServerPipelineHandler` and `HTTPServerProtocolErrorHandler`, two handlers that every
/// part of every response passed through (6 % of the requests a folder serves per second).
final class ConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// Something read: a part of a request, or bytes the decoder could not read.
    private enum Arrival {
        case part(HTTPServerRequestPart)
        case unreadable
    }

    private let configuration: ServerConfiguration
    private let responder: any HTTPResponder
    private let log: (@Sendable (RequestLogLine) -> Void)?
    private var head: HTTPRequestHead?
    private var body: ByteBuffer?
    private var refusal: ServerResponse?
    /// From a request's end until its response's end is written.
    private var responding = false
    /// Read while responding, answered in order after.
    private var waiting = CircularBuffer<Arrival>()
    /// A read asked for while requests wait: made once they are answered.
    private var readHeld = false
    /// Answering what waits (a response made at once ends inside the loop).
    private var draining = false
    /// A response that closes the connection has begun: nothing more is answered.
    private var closing = false

    init(configuration: ServerConfiguration, responder: any HTTPResponder, log: (@Sendable (RequestLogLine) -> Void)?) {
        self.configuration = configuration
        self.responder = responder
        self.log = log
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        arrived(.part(unwrapInboundIn(data)), context)
    }

    func read(context: ChannelHandlerContext) {
        if waiting.isEmpty {
            context.read()
        } else {
            readHeld = true
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError else { return context.close(promise: nil) }
        arrived(.unreadable, context)
    }

    /// Answers `arrival` now, or once the responses before it have ended.
    private func arrived(_ arrival: Arrival, _ context: ChannelHandlerContext) {
        if responding || !waiting.isEmpty {
            waiting.append(arrival)
        } else {
            answer(arrival, context)
        }
    }

    /// Takes a request's part in hand, or refuses what could not be read; nothing once the
    /// connection is closing.
    private func answer(_ arrival: Arrival, _ context: ChannelHandlerContext) {
        guard !closing else { return }
        switch arrival {
        case .part(let part): take(part, context: context)
        case .unreadable: refuseUnreadable(context)
        }
    }

    /// Answers a request the decoder could not read (its head, or the bytes after a request),
    /// then closes: where the next request would start is unknown.
    private func refuseUnreadable(_ context: ChannelHandlerContext) {
        closing = true
        let head = HTTPResponseHead(version: .http1_1, status: .badRequest, headers: ["Connection": "close", "Content-Length": "0"])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    /// The current response's end is written: answers what waited, in order, until one of
    /// them takes time (or closes), then reads again.
    private func responseEnded(_ context: ChannelHandlerContext) {
        responding = false
        guard !draining else { return }  // the loop below, further up the stack, goes on
        draining = true
        defer { draining = false }
        while !responding, !closing, let arrival = waiting.popFirst() { answer(arrival, context) }
        if closing { waiting.removeAll() }
        if waiting.isEmpty && readHeld {
            readHeld = false
            context.read()
        }
    }

    /// One part of a request, when no response is under way.
    private func take(_ part: HTTPServerRequestPart, context: ChannelHandlerContext) {
        switch part {
        case .head(let requestHead):
            head = requestHead
            body = nil
            refusal = requestHead.uri.utf8.count > configuration.maxTargetBytes
                ? .text(.uriTooLong, "The request target is longer than \(configuration.maxTargetBytes) bytes.\n") : nil
        case .body(var buffer):
            guard refusal == nil else { return }
            if (body?.readableBytes ?? 0) + buffer.readableBytes > configuration.maxRequestBodyBytes {
                refusal = .text(.payloadTooLarge, "The request body is larger than \(configuration.maxRequestBodyBytes) bytes.\n")
                body = nil
            } else if body == nil {
                body = buffer
            } else {
                body!.writeBuffer(&buffer)
            }
        case .end:
            guard let requestHead = head else { return }
            responding = true
            let request = ServerRequest(head: requestHead, body: body, remoteAddress: context.channel.remoteAddress)
            let refused = refusal
            (head, body, refusal) = (nil, nil, nil)
            let exchange = Exchange(request: requestHead, started: .now, refused: refused != nil)
            if let response = refused ?? responder.respondImmediately(to: request) {
                send(response, exchange, context: context)
                return
            }
            let responder = self.responder
            context.eventLoop.makeFutureWithTask { await responder.respond(to: request) }
                .assumeIsolated().whenSuccess { response in self.send(response, exchange, context: context) }
        }
    }

    /// One request being answered: what the response and the log need of it.
    private struct Exchange {
        let request: HTTPRequestHead
        let started: ContinuousClock.Instant
        let refused: Bool
    }

    /// Writes `response`, then logs it and closes the connection when it must.
    private func send(_ response: ServerResponse, _ exchange: Exchange, context: ChannelHandlerContext) {
        var response = response
        let request = exchange.request
        // The responder may end the connection too (after a refused CONNECT, no request follows).
        let closes = exchange.refused || !request.isKeepAlive
            || response.headers[canonicalForm: "connection"].contains { $0.lowercased() == "close" }
        if closes {
            closing = true
            response.headers.replaceOrAdd(name: "Connection", value: "close")
        } else if request.version.major == 1 && request.version.minor == 0 {
            response.headers.replaceOrAdd(name: "Connection", value: "keep-alive")
        }
        let code = response.status.code
        let hasBody = request.method != .HEAD && code != 304 && code != 204 && code >= 200
        if case .file(let handle, let range) = response.body, hasBody, configuration.tunnelsConnect,
           (try? context.pipeline.syncOperations.context(handlerType: NIOSSLServerHandler.self)) != nil {
            // Decrypted by an intercepting proxy (only a proxy's tunnels add TLS; the pipeline is
            // not searched for every file otherwise): the bytes must pass through here.
            response.body = Self.read(handle, range)
        }
        let finished = { (bytes: Int, complete: Bool) in
            self.log?(RequestLogLine(client: context.channel.remoteAddress, method: request.method, target: request.uri,
                                     status: Int(code), bytes: bytes, duration: .now - exchange.started,
                                     note: response.logNote))
            if closes || !complete { context.close(promise: nil) }  // a body cut short must not look whole
        }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: response.status, headers: response.headers))),
                      promise: nil)
        switch response.body {
        case .file(let handle, let range):
            guard hasBody else {
                try? handle.close()
                return end(context) { finished(0, $0) }
            }
            write(handle, range, context) { written in
                guard written else {
                    try? handle.close()
                    return finished(0, false)
                }
                self.end(context) { complete in
                    try? handle.close()
                    finished(complete ? range.count : 0, complete)
                }
            }
        case .bytes(let buffer) where hasBody:
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
            end(context) { finished(buffer.readableBytes, $0) }
        case .stream(let produce) where hasBody:
            context.flush()
            let channel = context.channel
            let sent = NIOLockedValueBox(0)
            // Each piece waits until the previous one is in the kernel's hands: the client's pace.
            context.eventLoop.makeFutureWithTask {
                try await produce(ResponseBodyWriter { buffer in
                    sent.withLockedValue { $0 += buffer.readableBytes }
                    try await channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(buffer))).get()
                })
            }.assumeIsolated().whenComplete { result in
                let bytes = sent.withLockedValue { $0 }
                guard case .success = result else { return finished(bytes, false) }
                self.end(context) { finished(bytes, $0) }
            }
        case .empty, .bytes, .stream:
            end(context) { finished(0, $0) }
        }
    }

    /// The most bytes of a file handed to the kernel at once.
    static let filePiece = 1 << 20

    /// Writes a file's range for the kernel to send: at once when it is small, else in pieces of
    /// `filePiece` bytes, each written once the one before is sent, so that a slow download
    /// shows its progress (`ConnectionDeadline`) and a client that hangs up stops it. `then`
    /// learns whether the pieces before the last were all sent.
    private func write(_ handle: NIOFileHandle, _ range: Range<Int>, _ context: ChannelHandlerContext,
                       then: @escaping (Bool) -> Void) {
        let piece = range.lowerBound..<min(range.upperBound, range.lowerBound + Self.filePiece)
        let region = wrapOutboundOut(.body(.fileRegion(FileRegion(
            fileHandle: handle, readerIndex: piece.lowerBound, endIndex: piece.upperBound))))
        guard piece.upperBound < range.upperBound else {
            context.write(region, promise: nil)
            return then(true)
        }
        let sent = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(region, promise: sent)
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
                let piece = try await io.read(fileHandle: handle, fromOffset: Int64(offset),
                                              byteCount: min(64 << 10, range.upperBound - offset), allocator: ByteBufferAllocator())
                guard piece.readableBytes > 0 else { throw IOError(errnoCode: EIO, reason: "the file ended before its range") }
                offset += piece.readableBytes
                try await writer.write(piece)
            }
        }
    }

    /// Ends the response, then goes on to the next request; `done` learns whether all of the
    /// response went out.
    private func end(_ context: ChannelHandlerContext, _ done: @escaping (Bool) -> Void) {
        let promise = context.eventLoop.makePromise(of: Void.self)
        promise.futureResult.assumeIsolated().whenComplete { result in
            if case .success = result { done(true) } else { done(false) }
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: promise)
        responseEnded(context)
    }
}
