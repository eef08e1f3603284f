import Dispatch
import MirrorLock

/// Work started on a thread of its own now, and waited for when its result is wanted: for CPU
/// work that runs beside other work of the caller's (not for async code: it blocks a thread).
public final class BackgroundWork<Value: Sendable>: Sendable {
    private final class Outcome: Sendable {
        let result = Locked<Result<Value, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
    }

    private let outcome = Outcome()

    public init(_ work: @escaping @Sendable () throws -> Value) {
        DispatchQueue.global().async { [outcome] in
            let result = Result { try work() }
            outcome.result.withLock { $0 = result }
            outcome.done.signal()
        }
    }

    /// The work's value (or error), once it is done.
    public func result() throws -> Value {
        outcome.done.wait()
        outcome.done.signal()
        return try outcome.result.withLock { $0! }.get()
    }
}
