import NIOCore

/// An event loop as a task executor: a task that prefers it runs its jobs on the loop's thread,
/// where async-http-client then finds its connections (`EventLoopGroup.any()` answers the
/// current loop) and answers without waking another thread.
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
