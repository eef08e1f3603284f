import MirrorLock

/// `operation`'s result, or the error `expired` makes once `deadline` passes first. The
/// operation is then cancelled and left to end on its own: this returns at the deadline even
/// when the operation does not heed cancellation (a connection pool waiting for a lease, a
/// read on a socket that went away).
public func withDeadline<Result: Sendable>(
    _ deadline: ContinuousClock.Instant, orThrow expired: @escaping @Sendable () -> any Error,
    _ operation: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    let race = DeadlineRace<Result>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            let work = Task {
                do { race.finish(with: .success(try await operation())) } catch { race.finish(with: .failure(error)) }
            }
            let timer = Task {
                guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return }
                race.finish(with: .failure(expired()))
            }
            race.start(continuation, tasks: [work, timer])
        }
    } onCancel: {
        race.finish(with: .failure(CancellationError()))
    }
}

/// The first of an operation, its deadline and the caller's cancellation to finish; the others
/// are cancelled.
private final class DeadlineRace<Result: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result, any Error>?
        var tasks: [Task<Void, Never>] = []
        /// Set when the race finished before it started (cancelled at once).
        var early: Swift.Result<Result, any Error>?
        var finished = false
    }

    private let state = Locked(State())

    func start(_ continuation: CheckedContinuation<Result, any Error>, tasks: [Task<Void, Never>]) {
        let early: Swift.Result<Result, any Error>? = state.withLock { state in
            state.tasks = tasks
            guard let early = state.early else {
                state.continuation = continuation
                return nil
            }
            return early
        }
        if let early {
            tasks.forEach { $0.cancel() }
            continuation.resume(with: early)
        }
    }

    func finish(with result: Swift.Result<Result, any Error>) {
        let (continuation, tasks): (CheckedContinuation<Result, any Error>?, [Task<Void, Never>]) = state.withLock { state in
            guard !state.finished else { return (nil, []) }
            state.finished = true
            guard let continuation = state.continuation else {
                state.early = result
                return (nil, [])
            }
            state.continuation = nil
            return (continuation, state.tasks)
        }
        tasks.forEach { $0.cancel() }
        continuation?.resume(with: result)
    }
}
