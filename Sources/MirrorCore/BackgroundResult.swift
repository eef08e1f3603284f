import Foundation

/// A value made on a thread of its own while the caller goes on with other blocking work (files,
/// SQLite), outside Swift's cooperative pool, which such work would hold up. `value()` waits for
/// it: call it on every path before anything the work uses goes away.
///
/// Unchecked Sendable: `result` is set once, by the thread, and read, under `condition`.
public final class BackgroundResult<Value: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var result: Result<Value, any Error>?

    /// Starts `work` on a new thread with a stack as large as the main thread's.
    public init(_ work: @escaping @Sendable () throws -> Value) {
        let thread = Thread { [self] in
            let made = Result(catching: work)
            condition.lock()
            result = made
            condition.broadcast()
            condition.unlock()
        }
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// What the work returned or threw, once it is done.
    public func value() throws -> Value {
        condition.lock()
        defer { condition.unlock() }
        while result == nil { condition.wait() }
        return try result!.get()
    }
}
