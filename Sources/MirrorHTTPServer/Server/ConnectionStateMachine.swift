import NIOCore
import NIOHTTP1

/// The life of one connection, from the requests read to the responses ended: which request is
/// answered when, what waits, when reading pauses, and when nothing more is answered. It only
/// decides; `ConnectionHandler` performs its actions on the channel, so every transition can
/// be tested without a socket.
///
/// Requests sent without waiting for the answers (pipelining) are answered in order: what
/// arrives while a response is under way waits here, and a read asked for meanwhile is held
/// until what waits is answered. A request the decoder cannot read waits its turn too, then
/// gets a 400 and the connection ends; nothing after a response that closes the connection is
/// answered.
struct ConnectionStateMachine {
    /// Something read: a part of a request, or bytes the decoder could not read.
    enum Arrival {
        case part(HTTPServerRequestPart)
        case unreadable
    }

    /// A request read whole, with the refusal it earned while it was read (a target or body
    /// over the limits), which is its answer.
    struct Request {
        var head: HTTPRequestHead
        var body: ByteBuffer?
        var refusal: ServerResponse?
    }

    /// What the handler does next.
    enum Action {
        case none
        /// Passes a read on to the channel.
        case read
        /// Answers `request`; `thenRead`: a held read is passed on after the answer has begun.
        case respond(Request, thenRead: Bool)
        /// Answers 400 and closes: where the next request would start is unknown.
        case refuseUnreadable
    }

    private enum State {
        /// No response is under way; the request being read, if one has begun.
        case reading(Request?)
        /// A response is under way: what arrives waits, in order; `readHeld` when a read was
        /// asked for while something waited.
        case responding(waiting: CircularBuffer<Arrival>, readHeld: Bool)
        /// A response that closes the connection has begun, or an unreadable request was
        /// refused: nothing more is answered.
        case closing
        /// Only while a payload is changed in place (so that no copy of it is made).
        case modifying
    }

    private var state = State.reading(nil)
    private let maxTargetBytes: Int
    private let maxRequestBodyBytes: Int

    init(maxTargetBytes: Int, maxRequestBodyBytes: Int) {
        self.maxTargetBytes = maxTargetBytes
        self.maxRequestBodyBytes = maxRequestBodyBytes
    }

    /// The channel asks for more bytes: passed on, unless requests wait to be answered.
    mutating func readRequested() -> Action {
        guard case .responding(let waiting, _) = state, !waiting.isEmpty else { return .read }
        state = .responding(waiting: waiting, readHeld: true)
        return .none
    }

    /// Something was read.
    mutating func arrived(_ arrival: Arrival) -> Action {
        switch state {
        case .reading(let request):
            state = .modifying
            return take(arrival, into: request)
        case .responding(var waiting, let readHeld):
            state = .modifying
            waiting.append(arrival)
            state = .responding(waiting: waiting, readHeld: readHeld)
            return .none
        case .closing:
            return .none
        case .modifying:
            preconditionFailure("re-entered while changing state")
        }
    }

    /// The response under way has written its end; `closesConnection` when it closes the
    /// connection. Answers what waited, in order, until a request needs an answer.
    mutating func responseEnded(closesConnection: Bool) -> Action {
        guard case .responding(var waiting, let readHeld) = state else { return .none }  // closing already
        if closesConnection {
            state = .closing
            return readHeld ? .read : .none
        }
        state = .modifying
        var request: Request?
        while let arrival = waiting.popFirst() {
            switch take(arrival, into: request.take()) {
            case .none:
                guard case .reading(let partial) = state else { preconditionFailure("reading stopped without an action") }
                request = partial
                state = .modifying
            case .respond(let whole, _):
                state = .responding(waiting: waiting, readHeld: readHeld && !waiting.isEmpty)
                return .respond(whole, thenRead: readHeld && waiting.isEmpty)
            case .refuseUnreadable:
                return .refuseUnreadable
            case .read:
                preconditionFailure("taking a part never reads")
            }
        }
        state = .reading(request)
        return readHeld ? .read : .none
    }

    /// Takes a part into the request being read, or refuses what could not be read; leaves
    /// the state as the action needs it.
    private mutating func take(_ arrival: Arrival, into request: consuming Request?) -> Action {
        guard case .part(let part) = arrival else {
            state = .closing
            return .refuseUnreadable
        }
        switch part {
        case .head(let head):
            let refusal: ServerResponse? =
                head.uri.utf8.count > maxTargetBytes
                ? .text(.uriTooLong, "The request target is longer than \(maxTargetBytes) bytes.\n") : nil
            state = .reading(Request(head: head, body: nil, refusal: refusal))
            return .none
        case .body(var buffer):
            // Taken out, so that the body grows in place.
            guard var request = request.take() else {
                state = .reading(nil)
                return .none
            }
            if request.refusal != nil {  // refused already: the rest of the body is dropped
                state = .reading(request)
                return .none
            }
            if (request.body?.readableBytes ?? 0) + buffer.readableBytes > maxRequestBodyBytes {
                request.refusal = .text(.payloadTooLarge, "The request body is larger than \(maxRequestBodyBytes) bytes.\n")
                request.body = nil
            } else if request.body == nil {
                request.body = buffer
            } else {
                request.body!.writeBuffer(&buffer)
            }
            state = .reading(request)
            return .none
        case .end:
            guard let request else {
                state = .reading(nil)
                return .none
            }
            state = .responding(waiting: CircularBuffer(), readHeld: false)
            return .respond(request, thenRead: false)
        }
    }
}
