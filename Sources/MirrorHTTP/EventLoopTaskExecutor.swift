import NIOCore

/// An event loop as a task executor: a task that prefers it runs its jobs on the loop's thread,
/// where the transport's client of that loop has its connections and answers without waking
/// another thread.
final class EventLoopTaskExecutor: TaskExecutor {
    private let loop: any EventLoop

    init(_ loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
