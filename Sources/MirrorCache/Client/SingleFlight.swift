import MirrorLock

/// Coalesces concurrent work on the same key: the first caller runs it, the others
/// wait for its result. Used so that N concurrent requests for one URL make one
/// origin request.
final class SingleFlight<Value: Sendable>: Sendable {
    private let inFlight = Locked<[String: Task<Value, any Error>]>([:])

    /// The work's result, and whether this caller joined another's run instead of starting one.
    func run(key: String, _ work: @escaping @Sendable () async throws -> Value) async throws -> (value: Value, joined: Bool) {
        let (task, isLeader) = inFlight.withLock { tasks -> (Task<Value, any Error>, Bool) in
            if let existing = tasks[key] { return (existing, false) }
            let task = Task(executorPreference: PreferredExecutor.current) { try await work() }
            tasks[key] = task
            return (task, true)
        }
        if isLeader {
            defer { _ = inFlight.withLock { $0.removeValue(forKey: key) } }
            return (try await task.value, false)
        }
        return (try await task.value, true)
    }
}
