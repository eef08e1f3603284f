import Foundation

/// A value made on a thread of its own while the caller goes on with other blocking work (files,
/// SQLite), outside Swift's cooperative pool, which such work would hold up. `value()` waits for
/// it: call it on every path before anything the work uses goes away.
///
/// Unchecked Sendable: `work` is taken once and `result` set once, by the thread, both under
/// `condition`, and `result` is read under it.
public final class BackgroundResult<Value: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var work: (@Sendable () throws -> Value)?
    private var result: Result<Value, any Error>?

    /// Starts `work` on a new thread with a stack as large as the main thread's.
    public init(_ work: @escaping @Sendable () throws -> Value) {
        self.work = work
        let thread = Thread { [self] in run() }
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// What the work returned or threw, once it is done; by then what it held is let go.
    public func value() throws -> Value {
        condition.lock()
        defer { condition.unlock() }
        while result == nil { condition.wait() }
        return try result!.get()
    }

    /// Runs the work and lets it go before giving its result: the thread's own closure lives on
    /// until the thread has exited, after `value()` returned, and with it what the work holds (a
    /// crawl's journal, whose files the caller expects closed once it has the value).
    private func run() {
        let made: Result<Value, any Error>
        do {
            condition.lock()
            let work = self.work!
            self.work = nil
            condition.unlock()
            made = Result(catching: work)
        }
        condition.lock()
        result = made
        condition.broadcast()
        condition.unlock()
    }
}
