import MirrorLock

/// The heartbeat of a worker of a shared crawl: every third of a lease it renews the leases of
/// the worker's claims and the worker's own heartbeat, and puts back in the queue the claims
/// whose lease ended. What it last failed with is kept for the frontier to throw.
final class SharedHeartbeat: Sendable {
    private let crawl: SharedCrawl
    private let leases: SharedLeases
    private let task = Locked<Task<Void, Never>?>(nil)
    /// What the heartbeat last failed with: the frontier's next call to `next()` throws it.
    private let lost = Locked<(any Error)?>(nil)

    init(crawl: SharedCrawl, leases: SharedLeases) {
        self.crawl = crawl
        self.leases = leases
    }

    /// What the heartbeat last failed with, if it failed.
    var failure: (any Error)? { lost.withLock { $0 } }

    /// Starts beating, unless it beats already. `held` gives the `seq`s of the claims the worker
    /// holds at each beat, or nil once the worker's frontier is gone.
    func start(held: @escaping @Sendable () async -> [Int64]?) {
        task.withLock { task in
            guard task == nil else { return }
            let interval = crawl.lease / 3
            task = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    guard let self, !Task.isCancelled else { return }
                    await self.beat(held)
                }
            }
        }
    }

    /// Ends the heartbeat.
    func stop() {
        task.withLock { task in
            task?.cancel()
            task = nil
        }
    }

    /// Renews this worker's claims and heartbeat, and puts back in the queue the claims whose lease ended.
    private func beat(_ held: @Sendable () async -> [Int64]?) async {
        guard let seqs = await held() else { return }
        do {
            try await leases.renew(seqs)
            try await crawl.heartbeat(report: nil)
            try await leases.requeue(nil)
        } catch {
            lost.withLock { $0 = error }
        }
    }
}
