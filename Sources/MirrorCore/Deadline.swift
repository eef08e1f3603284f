/// `operation`'s result, or the error `expired` makes once `deadline` passes first (the operation
/// is then cancelled, and this returns when it has ended).
public func withDeadline<Result: Sendable>(_ deadline: ContinuousClock.Instant, orThrow expired: @escaping @Sendable () -> any Error,
                                           _ operation: @escaping @Sendable () async throws -> Result) async throws -> Result {
    try await withThrowingTaskGroup(of: Result.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(until: deadline, clock: .continuous)
            throw expired()
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}
