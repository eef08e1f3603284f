import Foundation
import MirrorCore
public import MirrorCrawl
import MirrorLock
import PostgresNIO

/// The frontier of a shared crawl, in PostgreSQL: every worker claims URLs from it in batches.
///
/// - A URL is a row of `mirror_urls`, unique per crawl (the seen set), queued in the order it was
///   found (breadth-first, `seq`). A claim takes the oldest queued URLs of the hosts with a free
///   slot, marks them claimed by this worker until a lease ends, and counts them as fetches.
///   The lease is renewed while the worker lives; the claims of a worker that died return to
///   the queue when it ends. No transaction is open while a URL is fetched.
/// - A host is a row of `mirror_hosts` with its queue head (the `seq` of its first queued URL).
///   A claim takes the hosts with the oldest heads and free slots, skipping those another claim
///   holds, and locks them so that two workers never hand out more than `--per-host` URLs of a
///   host at once (one until its robots.txt is known). A host row is also locked by each
///   request that must be spaced (`--delay`, `Crawl-delay`): one such request at a time across
///   all workers, the next starting a delay after its end, timed by the database's clock
///   (`SharedPoliteness`).
/// - `--max-pages` and `--max-pages-per-host` count the pages of all workers (`SharedPageBudget`).
public actor SharedFrontier: CrawlFrontier {
    public nonisolated let crawlStartedAt: Double
    private let crawl: SharedCrawl
    private let database: SharedDatabase
    private let delay: Double
    private let obeyRobots: Bool
    private let politeness: SharedPoliteness
    private let budget: SharedPageBudget
    private let leases: SharedLeases
    private let claims: SharedClaims
    private let outcomes: SharedOutcomes
    private let heartbeat: SharedHeartbeat
    /// URLs claimed at once, at most: about what this worker's requests in flight can take.
    private let batch: Int

    /// Claimed and not handed out yet, in claim order.
    private var buffer: [CrawlItem] = []
    /// Claimed by this worker and not released, by URL, with their `seq`: the claims its heartbeat renews.
    private var held: [String: Int64] = [:]
    private var active = 0
    private var stopped = false
    private var claiming: Task<SharedClaims.Claim, any Error>?
    /// URLs this worker knows the crawl has seen: they are not asked of the database again.
    private var seen = KnownURLs()
    /// Claims waiting for this worker's next release (or a short while) before claiming again.
    private var waiters = ClaimWaiters()
    /// URLs claimed with no response shared for them at the claim: their first request needs no
    /// lookup of one (`SharedResponses`).
    private let unanswered = Locked(Set<String>())

    public init(crawl: SharedCrawl, configuration: CrawlConfiguration) {
        self.crawl = crawl
        database = crawl.database
        crawlStartedAt = crawl.startedAt
        let delay = configuration.delay ?? 0
        self.delay = delay
        obeyRobots = configuration.obeyRobots
        batch = max(1, configuration.concurrency)
        politeness = SharedPoliteness(crawl: crawl, delay: delay)
        let leases = SharedLeases(crawl: crawl)
        self.leases = leases
        claims = SharedClaims(crawl: crawl, perHost: max(1, configuration.perHost))
        outcomes = SharedOutcomes(crawl: crawl)
        heartbeat = SharedHeartbeat(crawl: crawl, leases: leases)
        budget = SharedPageBudget(crawl: crawl, maxPages: configuration.maxPages, maxPagesPerHost: configuration.maxPagesPerHost)
    }

    // MARK: Starting and ending

    /// The seeds were queued when the round began (`SharedCrawl.join`), in the same transaction:
    /// a worker that joins finds them there.
    public func start(seeds: [CrawlItem], resume: Bool) async throws -> CrawlStart {
        heartbeat.start { [weak self] in await self?.heldSeqs }
        return crawl.began ? .fresh : .joined
    }

    /// The `seq`s of the claims this worker holds: those its heartbeat renews.
    private var heldSeqs: [Int64] { Array(held.values) }

    /// Ends the heartbeat and gives back the claims this worker did not finish.
    public func close() async {
        heartbeat.stop()
        stopped = true
        waiters.wakeAll()
        let seqs = heldSeqs
        held = [:]
        buffer = []
        guard !seqs.isEmpty else { return }
        try? await leases.requeue(seqs)
    }

    public func stop() {
        stopped = true
        waiters.wakeAll()
    }

    public func forget() {}

    // MARK: Claims

    public func next() async throws -> CrawlItem? {
        var idle = Duration.milliseconds(5)
        while !stopped && !Task.isCancelled {
            if let lost = heartbeat.failure { throw lost }
            if !buffer.isEmpty {
                active += 1
                return buffer.removeFirst()
            }
            let task: Task<SharedClaims.Claim, any Error>
            if let claiming {
                task = claiming
            } else {
                let (limit, idleWorker) = (max(1, batch - active), active == 0)
                task = Task { try await self.claim(limit: limit, askingIfDone: idleWorker) }
                claiming = task
            }
            let claim = try await task.value
            if claiming == task {
                claiming = nil
                buffer += claim.items
                if claim.items.isEmpty {
                    if active == 0 && claim.frontierEmpty {
                        try await crawl.markFinished()
                        return nil
                    }
                    // A worker with requests in flight most often gets a slot when one of them ends.
                    await pause(upTo: idle)
                    idle = min(idle * 2, .milliseconds(40))
                } else {
                    idle = .milliseconds(5)
                }
            }
        }
        return nil
    }

    /// Waits until this worker releases an item, or `limit` passed.
    private func pause(upTo limit: Duration) async {
        let id = waiters.newID()
        let timer = Task { [weak self] in
            try? await Task.sleep(for: limit)
            await self?.wake(id)
        }
        await withCheckedContinuation { waiters.wait(id, $0) }
        timer.cancel()
    }

    private func wake(_ id: Int) {
        waiters.wake(id)
    }

    /// Whether `url` was claimed with no response shared for it and not asked of since; true
    /// once at most.
    nonisolated func claimedUnanswered(_ url: String) -> Bool {
        unanswered.withLock { $0.remove(url) != nil }
    }

    /// Claims a batch (`SharedClaims`) and holds what it took.
    private func claim(limit: Int, askingIfDone: Bool) async throws -> SharedClaims.Claim {
        let claim = try await claims.claim(limit: limit, askingIfDone: askingIfDone)
        for claimed in claim.claimed {
            held[claimed.item.url] = claimed.seq
            seen.remember(claimed.item.url)
        }
        unanswered.withLock { unanswered in
            for claimed in claim.claimed where !claimed.answered { unanswered.insert(claimed.item.url) }
        }
        return claim
    }

    /// Nothing to give back: a shared crawl's `--per-host` counts claims, which end when their
    /// outcome is recorded, in the database every worker reads.
    public func fetched(_ item: CrawlItem) {}

    public func release(_ item: CrawlItem) {
        active -= 1
        held[item.url] = nil
        unanswered.withLock { _ = $0.remove(item.url) }
        waiters.wakeAll()
    }

    /// Records what `url` became. Outcomes recorded while a write runs are written together by
    /// the next one, in one statement; each call returns once its outcome is written.
    public func record(_ url: String, _ outcome: CrawlOutcome, status: Int?, detail: String?) async throws {
        guard let seq = held[url] else { return }  // only claims are recorded, before they are released
        try await outcomes.record(seq: seq, outcome, status: status, detail: detail)
    }

    // MARK: The seen set

    /// The URLs this worker has not met: `add` inserts those the crawl has not seen either,
    /// and leaves the others, so a page's links cost no statement before their insert.
    public func firstSightings(_ urls: [String]) async throws -> [Bool] {
        urls.map { !seen.contains($0) }
    }

    public func isSeen(_ url: String) async throws -> Bool {
        if seen.contains(url) { return true }
        let known = try await database.query("SELECT 1 FROM mirror_urls WHERE crawl = \(crawl.id) AND url = \(url)") { _ in true }
        if !known.isEmpty { seen.remember(url) }
        return !known.isEmpty
    }

    public func add(_ queued: [CrawlItem], skipped: [(CrawlItem, SkipReason)]) async throws -> [Bool] {
        guard !queued.isEmpty || !skipped.isEmpty else { return [] }
        let (crawl, robotsKnown, delay) = (self.crawl, !obeyRobots, self.delay)
        let inserted = try await database.retrying { connection in
            try await SharedURLInsert.insert(
                queued, skipped: skipped, crawl: crawl.id, robotsKnown: robotsKnown, delay: delay, on: connection)
        }
        for item in queued { seen.remember(item.url) }
        for (item, _) in skipped { seen.remember(item.url) }
        return skipped.map { inserted.contains($0.0.url) }
    }

    // MARK: Politeness and page budget, kept across the workers by their own types

    public nonisolated func waitTurn(_ host: String) async throws -> Bool { try await politeness.waitTurn(host) }
    public nonisolated func requestEnded(_ host: String) async { await politeness.requestEnded(host) }
    public nonisolated func robotsKnown(_ host: String, crawlDelay: Double?) async throws {
        try await politeness.robotsKnown(host, crawlDelay: crawlDelay)
    }
    public nonisolated func admitPage(host: String) async throws -> SkipReason? { try await budget.admitPage(host: host) }
    public nonisolated func pageEnded(host: String, saved: Bool) async { await budget.pageEnded(host: host, saved: saved) }

    public func pendingCount() async -> Int {
        (try? await database.query("SELECT count(*) FROM mirror_urls WHERE crawl = \(crawl.id) AND state = 'queued'") {
            try $0.decode(Int.self)
        }.first) ?? 0
    }
}
