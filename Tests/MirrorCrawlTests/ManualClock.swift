import MirrorLock

/// A clock that moves only when a test moves it: a sleeper wakes when `advance(by:)` reaches
/// its deadline, so timing is tested with no waiting.
final class ManualClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        /// Time since the clock was made.
        let offset: Duration

        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (earlier: Instant, later: Instant) -> Bool { earlier.offset < later.offset }
    }

    private struct Sleeper {
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
    }

    private let state = Locked(State())

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .zero }

    /// How many calls of `sleep` wait now.
    var sleepers: Int { state.withLock { $0.sleepers.count } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let due = state.withLock { state in
                guard deadline > state.now else { return true }
                state.sleepers.append(Sleeper(deadline: deadline, continuation: continuation))
                return false
            }
            if due { continuation.resume() }
        }
    }

    /// Moves the clock on, waking the sleepers whose deadline it reaches.
    func advance(by duration: Duration) {
        let woken = state.withLock { state in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            defer { state.sleepers.removeAll { $0.deadline <= now } }
            return state.sleepers.filter { $0.deadline <= now }.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    /// Returns once `count` calls of `sleep` wait (other tasks run meanwhile: no time passes).
    func untilSleeping(_ count: Int = 1) async {
        while sleepers < count { await Task.yield() }
    }
}
