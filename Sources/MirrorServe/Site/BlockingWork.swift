import MirrorLock
import NIOPosix

/// Blocking work (opening and reading a site's files) on NIO's thread pool, its result handed to
/// the awaiting task under a lock. When the work ends before the task has suspended, the Swift
/// runtime orders the two by an atomic of its own (the fast path of `swift_continuation_await`,
/// stdlib/public/Concurrency/Task.cpp), which ThreadSanitizer does not see: it reported what the
/// work made (a bundle file's reader and its inflated copy) as a race when the task used it. The
/// lock is an order it sees, and costs nothing beside a file's open.
enum BlockingWork {
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let handover = Locked<Result<T, any Error>?>(nil)
        try await NIOThreadPool.singleton.runIfActive {
            let result = Result { try body() }
            handover.withLock { $0 = result }
        }
        guard let result = handover.withLock({ $0 }) else { preconditionFailure("the pool ran the work without a result") }
        return try result.get()
    }
}
