import Dispatch

/// Runs the test origins' tasks — and tests that watch a child process's progress to signal it
/// at a given moment — on Dispatch's threads instead of Swift's cooperative pool.
///
/// Swift Testing runs tests in parallel on the cooperative pool, which has one thread per core
/// (two here); two tests doing long synchronous work (a property test, parsing thousands of
/// pages) would otherwise starve every origin of the run, and a crawl under test would time
/// out waiting for a server that is merely not scheduled.
public final class OriginExecutor: TaskExecutor {
    public static let shared = OriginExecutor()

    private let queue = DispatchQueue(label: "mirror.test-origin", attributes: .concurrent)

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
