import Foundation
import MirrorCore
import MirrorLock

#if canImport(Glibc)
import Glibc
#endif

/// The Chrome DevTools protocol over `--remote-debugging-pipe`: commands are written to the
/// browser's descriptor 3 and answers and events read from its descriptor 4, each message a
/// JSON object ended by a NUL byte. A thread of its own reads; calls wait for the answer with
/// their `id`, and events go to the listener of their session (`sessionId`, "" for the browser).
final class DevToolsPipe: Sendable {
    /// A message from the browser: an answer (`id`, with `result` or `error`) or an event
    /// (`method`, `params`, and the `sessionId` of the page it concerns).
    struct Message: Decodable {
        struct Failure: Decodable {
            let code: Int?
            let message: String
        }
        let id: Int?
        let method: String?
        let params: JSONValue?
        let result: JSONValue?
        let error: Failure?
        let sessionId: String?
    }

    private struct Outgoing: Encodable {
        let id: Int
        let method: String
        let params: JSONValue
        let sessionId: String?
    }

    typealias Listener = @Sendable (_ method: String, _ params: JSONValue) -> Void

    private struct State {
        var nextID = 1
        var pending: [Int: CheckedContinuation<JSONValue, any Error>] = [:]
        var listeners: [String: Listener] = [:]
        /// Set once the browser has closed its end: every call fails with it from then on.
        var closed: BrowserError?
    }

    private let commands: Int32
    private let events: Int32
    private let state = Locked(State())
    private let writing = Locked(())

    /// Takes ownership of `commands` (written) and `events` (read) and starts reading.
    init(commands: Int32, events: Int32) {
        self.commands = commands
        self.events = events
        let reader = Thread { [self] in readLoop() }
        reader.name = "mirror devtools reader"
        reader.start()
    }

    /// Sends `method` and returns its result; throws the browser's error, `BrowserError.closed`
    /// when the browser ended, or `BrowserError.timedOut` after `timeout`.
    @discardableResult
    func call(_ method: String, _ params: JSONValue = [:], session: String? = nil, timeout: Duration = .seconds(30)) async throws
        -> JSONValue
    {
        try await withDeadline(.now + timeout, orThrow: { BrowserError.timedOut(method) }) {
            try await self.send(method, params, session: session)
        }
    }

    /// Writes the command and waits for the answer with its id; a cancelled wait stops waiting
    /// (the browser's late answer is dropped).
    private func send(_ method: String, _ params: JSONValue, session: String?) async throws -> JSONValue {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        var bytes = try JSONEncoder().encode(Outgoing(id: id, method: method, params: params, sessionId: session))
        bytes.append(0)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let refusal: (any Error)? = state.withLock { state in
                    if let closed = state.closed { return closed }
                    if Task.isCancelled { return CancellationError() }
                    state.pending[id] = continuation
                    return nil
                }
                if let refusal { return continuation.resume(throwing: refusal) }
                if !write(bytes) { fail(id, BrowserError.closed("the browser's command pipe is closed")) }
            }
        } onCancel: {
            fail(id, CancellationError())
        }
    }

    private func fail(_ id: Int, _ error: any Error) {
        state.withLock { $0.pending.removeValue(forKey: id) }?.resume(throwing: error)
    }

    /// Events of `session` ("" for the browser's own) go to `listener`, replacing any before.
    func listen(session: String, _ listener: @escaping Listener) {
        state.withLock { $0.listeners[session] = listener }
    }

    func stopListening(session: String) {
        state.withLock { _ = $0.listeners.removeValue(forKey: session) }
    }

    /// Whether the browser has closed its end of the pipe (it ended or crashed).
    var isClosed: Bool { state.withLock { $0.closed != nil } }

    private func write(_ data: Data) -> Bool {
        writing.withLock { _ in
            guard !isClosed else { return false }
            return data.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = Glibc.write(commands, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 && errno == EINTR { continue }
                    if written < 0 && errno == EPIPE {
                        // The browser is gone: known now, not only once the reader sees the end of
                        // its pipe (a busy machine may run that thread much later), so that a page
                        // whose calls fail here is tried again rather than saved as it was.
                        state.withLock { state in
                            if state.closed == nil { state.closed = BrowserError.closed("the browser's command pipe broke (it ended)") }
                        }
                    }
                    if written <= 0 { return false }
                    offset += written
                }
                return true
            }
        }
    }

    private func readLoop() {
        var framing = DevToolsFraming()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(events, $0.baseAddress!, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            framing.feed(chunk[0..<count]) { deliver($0) }
        }
        close(events)
        let pending = state.withLock { state in
            state.closed = BrowserError.closed("the browser closed its DevTools pipe (it ended or crashed)")
            defer { state.pending = [:] }
            return state.pending
        }
        // After `closed` is set no write starts, so the descriptor's number is not written to once reused.
        writing.withLock { _ in _ = close(commands) }
        for continuation in pending.values { continuation.resume(throwing: BrowserError.closed("the browser ended")) }
    }

    private func deliver(_ bytes: ArraySlice<UInt8>) {
        guard let message = try? JSONDecoder().decode(Message.self, from: Data(bytes)) else { return }
        if let id = message.id {
            guard let continuation = state.withLock({ $0.pending.removeValue(forKey: id) }) else { return }
            if let error = message.error {
                continuation.resume(throwing: BrowserError.protocolError(error.message))
            } else {
                continuation.resume(returning: message.result ?? .null)
            }
        } else if let method = message.method {
            let listener = state.withLock { $0.listeners[message.sessionId ?? ""] }
            listener?(method, message.params ?? .null)
        }
    }
}

/// Cuts the stream the browser writes into its messages, each ended by a NUL byte, however the
/// reads split it.
struct DevToolsFraming {
    /// The start of a message whose end has not come yet.
    private var held: [UInt8] = []

    /// Takes the next bytes read, handing each message they complete to `deliver`, in order.
    mutating func feed(_ bytes: ArraySlice<UInt8>, _ deliver: (ArraySlice<UInt8>) -> Void) {
        var start = bytes.startIndex
        while let end = bytes[start...].firstIndex(of: 0) {
            if held.isEmpty {
                deliver(bytes[start..<end])
            } else {
                held += bytes[start..<end]
                deliver(held[...])
                held = []
            }
            start = end + 1
        }
        held += bytes[start...]
    }
}
