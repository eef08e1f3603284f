import NIOPosix

/// Runs the test origins' tasks, tests that watch a child process's progress to signal it at a
/// given moment, and the longest synchronous tests (`offPool`) on threads of their own instead
/// of Swift's cooperative pool.
///
/// Swift Testing runs tests in parallel on the cooperative pool, which has one thread per core
/// (two here); two tests doing long synchronous work (a property test, parsing thousands of
/// pages) would otherwise starve every origin of the run, and a crawl under test would time
/// out waiting for a server that is merely not scheduled. The servers under test (`mirror
/// serve`, `mirror proxy`) run their requests on the pool as they do in use, so the long
/// synchronous tests leave it: a run where a property test and two bundle tests held both
/// threads for over a minute failed seven proxy tests on their 60 s receive timeout.
///
/// The threads are a pool's that take jobs from one queue. Not a concurrent Dispatch queue: on
/// Linux it shares the cooperative pool's threads, so an origin on one waited whenever the tests
/// held them all (`answersWhileTheCooperativePoolIsBusy` failed 6 of 6 runs alone). Nor serial
/// queues in turn: a watcher that blocks its thread held up every job queued behind it, and a
/// full run's crawls timed out on origins that did not answer.
public final class OffPoolExecutor: TaskExecutor {
    public static let shared = OffPoolExecutor(threads: 8)

    private let pool: NIOThreadPool

    init(threads: Int) {
        pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        pool.submit { _ in job.runSynchronously(on: executor) }
    }
}

/// Runs `body` — a test's long synchronous work — on `offPoolExecutor`'s one thread, so that
/// it does not hold one of the cooperative pool's threads while other tests' servers wait for
/// it. One at a time: with a thread each, nine such tests ran at once on two cores, and the
/// servers under test, a thread each of the pool among eleven busy ones, answered a proxy
/// test's request too late for its 60 s receive timeout (2 of 4 full runs).
public func offPool<T>(_ body: () throws -> T) async throws -> T {
    try await withTaskExecutorPreference(offPoolExecutor) { try body() }
}

private let offPoolExecutor = OffPoolExecutor(threads: 1)
