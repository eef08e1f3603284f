import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// Reads the requests of one connection in turn, asks the responder, writes each response.
struct ConnectionHandler<Responder: HTTPResponder>: Sendable {
    let configuration: ServerConfiguration
    let responder: Responder
    let log: (@Sendable (RequestLogLine) -> Void)?

    func serve(_ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>) async {
        let remote = connection.channel.remoteAddress
        try? await connection.executeThenClose { inbound, outbound in
            var head: HTTPRequestHead?
            var body: ByteBuffer?
            var refusal: ServerResponse?
            for try await part in inbound {
                switch part {
                case .head(let requestHead):
                    head = requestHead
                    body = nil
                    refusal = requestHead.uri.utf8.count > configuration.maxTargetBytes
                        ? .text(.uriTooLong, "The request target is longer than \(configuration.maxTargetBytes) bytes.\n") : nil
                case .body(var buffer):
                    guard refusal == nil else { continue }
                    if (body?.readableBytes ?? 0) + buffer.readableBytes > configuration.maxRequestBodyBytes {
                        refusal = .text(.payloadTooLarge, "The request body is larger than \(configuration.maxRequestBodyBytes) bytes.\n")
                        body = nil
                    } else if body == nil {
                        body = buffer
                    } else {
                        body!.writeBuffer(&buffer)
                    }
                case .end:
                    guard let requestHead = head else { continue }
                    head = nil
                    let started = ContinuousClock.now
                    let request = ServerRequest(head: requestHead, body: body, remoteAddress: remote)
                    var response: ServerResponse
                    if let refusal {
                        response = refusal
                    } else {
                        response = await responder.respond(to: request)
                    }
                    // The responder may end the connection too (after a refused CONNECT, no request follows).
                    let mustClose = refusal != nil || !requestHead.isKeepAlive
                        || response.headers[canonicalForm: "connection"].contains { $0.lowercased() == "close" }
                    let sent = await write(&response, for: requestHead, closing: mustClose, to: outbound)
                    log?(RequestLogLine(client: remote, method: requestHead.method, target: requestHead.uri,
                                        status: Int(response.status.code), bytes: sent.bytes,
                                        duration: ContinuousClock.now - started, note: response.logNote))
                    if mustClose || !sent.complete { return }
                }
            }
        }
    }

    /// Writes `response`; returns the body bytes sent and whether the whole message went out.
    private func write(_ response: inout ServerResponse, for request: HTTPRequestHead, closing: Bool,
                       to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>) async -> (bytes: Int, complete: Bool) {
        if closing {
            response.headers.replaceOrAdd(name: "Connection", value: "close")
        } else if request.version.major == 1 && request.version.minor == 0 {
            response.headers.replaceOrAdd(name: "Connection", value: "keep-alive")
        }
        let code = response.status.code
        let hasBody = request.method != .HEAD && code != 304 && code != 204 && code >= 200
        let head = HTTPResponseHead(version: .http1_1, status: response.status, headers: response.headers)
        do {
            switch hasBody ? response.body : .empty {
            case .empty:
                try await outbound.write(contentsOf: [.head(head), .end(nil)])
                return (0, true)
            case .bytes(let buffer):
                try await outbound.write(contentsOf: [.head(head), .body(.byteBuffer(buffer)), .end(nil)])
                return (buffer.readableBytes, true)
            case .stream(let produce):
                try await outbound.write(.head(head))
                let counter = NIOLockedValueBox(0)
                do {
                    try await produce(ResponseBodyWriter { buffer in
                        counter.withLockedValue { $0 += buffer.readableBytes }
                        try await outbound.write(.body(.byteBuffer(buffer)))
                    })
                } catch {
                    return (counter.withLockedValue { $0 }, false)  // a body cut short must not look whole: close
                }
                try await outbound.write(.end(nil))
                return (counter.withLockedValue { $0 }, true)
            }
        } catch {
            return (0, false)
        }
    }
}
