import NIOConcurrencyHelpers

/// Holds an origin's answers once it has received a given number of requests, until released:
/// a test can then act (restart a database, kill a process) at a known point of a crawl however
/// slowly the test itself is scheduled.
final class ResponseHold: Sendable {
    private struct State {
        var after: Int?
        var waiting: [CheckedContinuation<Void, Never>] = []
    }
    private let state = NIOLockedValueBox(State())

    /// Holds every answer to a request received after the first `count`.
    func hold(after count: Int) {
        state.withLockedValue { $0.after = count }
    }

    /// Lets the held answers and every later one go.
    func release() {
        let waiting = state.withLockedValue { state in
            state.after = nil
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Returns at once unless the request numbered `received` (from 1) is to be held; then when released.
    func wait(received: Int) async {
        // Not suspending when nothing is held: a resumed continuation may be scheduled on Swift's
        // cooperative pool, which a test can keep busy (the origin answers without it).
        guard state.withLockedValue({ state in state.after.map { received > $0 } ?? false }) else { return }
        await withCheckedContinuation { continuation in
            let holds = state.withLockedValue { state in
                guard let after = state.after, received > after else { return false }
                state.waiting.append(continuation)
                return true
            }
            if !holds { continuation.resume() }
        }
    }
}
