import Dispatch

/// Runs the test origins' tasks, tests that watch a child process's progress to signal it at a
/// given moment, and the longest synchronous tests (`offPool`) on Dispatch's threads instead of
/// Swift's cooperative pool.
///
/// Swift Testing runs tests in parallel on the cooperative pool, which has one thread per core
/// (two here); two tests doing long synchronous work (a property test, parsing thousands of
/// pages) would otherwise starve every origin of the run, and a crawl under test would time
/// out waiting for a server that is merely not scheduled. The servers under test (`mirror
/// serve`, `mirror proxy`) run their requests on the pool as they do in use, so the long
/// synchronous tests leave it: a run where a property test and two bundle tests held both
/// threads for over a minute failed seven proxy tests on their 60 s receive timeout.
public final class OffPoolExecutor: TaskExecutor {
    public static let shared = OffPoolExecutor(queue: DispatchQueue(label: "mirror.test-origin", attributes: .concurrent))

    private let queue: DispatchQueue

    init(queue: DispatchQueue) {
        self.queue = queue
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

/// Runs `body` — a test's long synchronous work — on the one thread of `offPoolQueue` (a serial
/// queue's: Dispatch gives those a thread even when its pool is busy, as the cooperative pool is
/// a Dispatch pool on Linux), so that it does not hold one of the cooperative pool's threads
/// while other tests' servers wait for it. One at a time: with a thread each, nine such tests
/// ran at once on two cores, and the servers under test, a thread each of the pool among eleven
/// busy ones, answered a proxy test's request too late for its 60 s receive timeout (2 of 4
/// full runs).
public func offPool<T>(_ body: () throws -> T) async throws -> T {
    try await withTaskExecutorPreference(OffPoolExecutor(queue: offPoolQueue)) { try body() }
}

private let offPoolQueue = DispatchQueue(label: "mirror.test-off-pool")
