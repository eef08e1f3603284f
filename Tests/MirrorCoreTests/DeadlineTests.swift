import MirrorCore
import MirrorLock
import Testing

@Suite("withDeadline")
struct DeadlineTests {
    struct Expired: Error {}

    @Test func theOperationsResultWhenItEndsFirst() async throws {
        let value = try await withDeadline(.now + .seconds(10), orThrow: { Expired() }) { 42 }
        #expect(value == 42)
    }

    /// An operation that does not heed cancellation (it waits on a continuation nobody resumes
    /// in time) does not hold the caller past the deadline: the caller gets the deadline's error
    /// while the operation still waits. (No wall-clock bound: on a loaded machine the timer waits
    /// for a thread of the pool for as long as the pool is busy.) A watchdog ends the operation
    /// after ten minutes, so that a broken `withDeadline` fails the test instead of hanging it.
    @Test func theDeadlineHoldsWhenTheOperationIgnoresCancellation() async throws {
        let operation = WaitingOperation()
        let watchdog = Task {
            try await Task.sleep(for: .seconds(600))
            operation.end(byWatchdog: true)
        }
        await #expect(throws: Expired.self) {
            try await withDeadline(.now + .milliseconds(200), orThrow: { Expired() }) {
                await operation.wait()
            }
        }
        watchdog.cancel()
        #expect(!operation.endedByWatchdog, "the caller was held until the operation ended")
        operation.end(byWatchdog: false)
    }

    /// An operation that waits until `end` is called, whether before or after it starts waiting.
    final class WaitingOperation: Sendable {
        private enum State {
            case running
            case waiting(CheckedContinuation<Void, Never>)
            case ended(byWatchdog: Bool)
        }
        private let state = Locked(State.running)

        func wait() async {
            await withCheckedContinuation { continuation in
                let ended = state.withLock { state in
                    guard case .running = state else { return true }
                    state = .waiting(continuation)
                    return false
                }
                if ended { continuation.resume() }
            }
        }

        func end(byWatchdog: Bool) {
            let waiting: CheckedContinuation<Void, Never>? = state.withLock { state in
                if case .ended = state { return nil }
                defer { state = .ended(byWatchdog: byWatchdog) }
                if case .waiting(let continuation) = state { return continuation }
                return nil
            }
            waiting?.resume()
        }

        var endedByWatchdog: Bool { state.withLock { if case .ended(true) = $0 { true } else { false } } }
    }

    @Test func cancellingTheCallerEndsTheWait() async throws {
        let (started, start) = AsyncStream.makeStream(of: Void.self)
        let task = Task {
            try await withDeadline(.now + .seconds(30), orThrow: { Expired() }) {
                start.finish()
                try await Task.sleep(for: .seconds(30))
            }
        }
        for await _ in started {}  // the operation runs
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }
}
