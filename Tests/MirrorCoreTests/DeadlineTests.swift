import MirrorCore
import Synchronization
import Testing

@Suite("withDeadline")
struct DeadlineTests {
    struct Expired: Error {}

    @Test func theOperationsResultWhenItEndsFirst() async throws {
        let value = try await withDeadline(.now + .seconds(10), orThrow: { Expired() }) { 42 }
        #expect(value == 42)
    }

    /// An operation that does not heed cancellation (it waits on a continuation nobody resumes
    /// in time) does not hold the caller past the deadline.
    @Test func theDeadlineHoldsWhenTheOperationIgnoresCancellation() async throws {
        let waiting = Mutex<CheckedContinuation<Void, Never>?>(nil)
        let started = ContinuousClock.now
        await #expect(throws: Expired.self) {
            try await withDeadline(.now + .milliseconds(200), orThrow: { Expired() }) {
                await withCheckedContinuation { continuation in waiting.withLock { $0 = continuation } }
            }
        }
        // Well before it: on a loaded machine the timer waits for a thread of the pool.
        #expect(ContinuousClock.now - started < .seconds(60))
        waiting.withLock { $0?.resume() }
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
