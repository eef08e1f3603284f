import Foundation
import MirrorCore
public import MirrorCrawl
import PostgresNIO
import Synchronization

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
///   all workers, the next starting a delay after its end, timed by the database's clock.
/// - `--max-pages` and `--max-pages-per-host` count the pages of all workers.
public actor SharedFrontier: CrawlFrontier {
    public nonisolated let crawlStartedAt: Double
    private let crawl: SharedCrawl
    private let database: SharedDatabase
    private let perHost: Int
    private let delay: Double
    private let obeyRobots: Bool
    private let maxPages: Int?
    private let maxPagesPerHost: Int?
    /// URLs claimed at once, at most: about what this worker's requests in flight can take.
    private let batch: Int

    /// Claimed and not handed out yet, in claim order.
    private var buffer: [CrawlItem] = []
    /// Claimed by this worker and not released, by URL, with their `seq`: the claims its heartbeat renews.
    private var held: [String: Int64] = [:]
    private var active = 0
    private var stopped = false
    private var claiming: Task<Claim, any Error>?
    /// Outcomes recorded and not written yet: the next write takes them all.
    private var unwritten: [Outcome] = []
    /// The write that will take the outcomes recorded now, once the write before it ended.
    private var nextWrite: Task<Void, any Error>?
    private var lastWrite: Task<Void, any Error>?
    /// Hosts whose robots.txt is known, with their delay: they never change again in a round.
    private var settled: [String: Double] = [:]
    private var heartbeat: Task<Void, Never>?
    /// What the heartbeat last failed with: the next call to `next()` throws it.
    private var lost: (any Error)?
    /// URLs this worker knows the crawl has seen: it found, claimed or was told of them. The seen
    /// set only grows in a round, so these are not asked of the database again.
    private var seen = Set<String>()
    /// Claims waiting for this worker's next release (or a short while) before claiming again.
    private var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiter = 0
    /// URLs claimed with no response shared for them at the claim: their first request needs no
    /// lookup of one (`SharedResponses`).
    private let unanswered = Mutex(Set<String>())

    public init(crawl: SharedCrawl, configuration: CrawlConfiguration) {
        self.crawl = crawl
        database = crawl.database
        crawlStartedAt = crawl.startedAt
        perHost = max(1, configuration.perHost)
        delay = configuration.delay ?? 0
        obeyRobots = configuration.obeyRobots
        maxPages = configuration.maxPages
        maxPagesPerHost = configuration.maxPagesPerHost
        batch = max(1, configuration.concurrency)
    }

    private var leaseSeconds: Double { crawl.lease.seconds }

    // MARK: Starting and ending

    /// The seeds were queued when the round began (`SharedCrawl.join`), in the same transaction:
    /// a worker that joins finds them there.
    public func start(seeds: [CrawlItem], resume: Bool) async throws -> CrawlStart {
        startHeartbeat()
        return crawl.began ? .fresh : .joined
    }

    private func startHeartbeat() {
        guard heartbeat == nil else { return }
        let interval = crawl.lease / 3
        heartbeat = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard let self, !Task.isCancelled else { return }
                await self.beat()
            }
        }
    }

    /// Renews this worker's claims and heartbeat, and returns the claims whose lease ended.
    private func beat() async {
        do {
            let seqs = Array(held.values)
            try await database.query("""
                UPDATE mirror_urls SET lease_until = now() + \(leaseSeconds) * interval '1 second'
                WHERE seq = ANY(\(seqs)) AND state = 'claimed' AND worker = \(crawl.worker)
                """)
            try await crawl.heartbeat(report: nil)
            try await returnExpiredClaims()
        } catch {
            lost = error
        }
    }

    /// Ends the heartbeat and gives back the claims this worker did not finish.
    public func close() async {
        heartbeat?.cancel()
        heartbeat = nil
        stopped = true
        wakeWaiting()
        let seqs = Array(held.values)
        held = [:]
        buffer = []
        guard !seqs.isEmpty else { return }
        try? await requeue(seqs)
    }

    public func stop() {
        stopped = true
        wakeWaiting()
    }

    public func forget() {}

    // MARK: Claims

    public func next() async throws -> CrawlItem? {
        var idle = Duration.milliseconds(5)
        while !stopped && !Task.isCancelled {
            if let lost { throw lost }
            if !buffer.isEmpty {
                active += 1
                return buffer.removeFirst()
            }
            let task: Task<Claim, any Error>
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
        let id = nextWaiter
        nextWaiter += 1
        let timer = Task { [weak self] in
            try? await Task.sleep(for: limit)
            await self?.wake(id)
        }
        await withCheckedContinuation { waiting[id] = $0 }
        timer.cancel()
    }

    private func wake(_ id: Int) {
        waiting.removeValue(forKey: id)?.resume()
    }

    private func wakeWaiting() {
        let woken = waiting.values
        waiting = [:]
        for continuation in woken { continuation.resume() }
    }

    /// Whether `url` was claimed with no response shared for it and not asked of since; true
    /// once at most.
    nonisolated func claimedUnanswered(_ url: String) -> Bool {
        unanswered.withLock { $0.remove(url) != nil }
    }

    /// What a claim took, and whether it found nothing queued nor claimed by anyone.
    private struct Claim: Sendable {
        var items: [CrawlItem] = []
        var frontierEmpty = false
    }

    /// Claims up to `limit` queued URLs, oldest first, of the hosts with the oldest queue heads
    /// and free slots that no other claim holds. With `askingIfDone`, a claim of nothing also
    /// says whether the whole crawl's frontier is empty.
    private func claim(limit: Int, askingIfDone: Bool) async throws -> Claim {
        let rows = try await database.execute(ClaimCall(values: [crawl.id, crawl.worker, limit, perHost, leaseSeconds, askingIfDone]))
        var items: [(Int64, CrawlItem, Bool)] = []
        var frontierEmpty = false
        for (seq, url, depth, role, hops, referrer, answered) in rows {
            guard let seq, let url, let depth, let role, let hops, let answered else {
                frontierEmpty = true
                continue
            }
            let item = CrawlItem(url: url, depth: depth, role: CrawlRole(rawValue: role) ?? .page, hops: hops, referrer: referrer)
            items.append((seq, item, answered))
        }
        let claimed = items.sorted { $0.0 < $1.0 }.map(\.1)
        for (seq, item, _) in items {
            held[item.url] = seq
            remember(item.url)
        }
        unanswered.withLock { unanswered in
            for (_, item, answered) in items where !answered { unanswered.insert(item.url) }
        }
        return Claim(items: claimed, frontierEmpty: frontierEmpty)
    }

    private struct ClaimCall: SharedStatement {
        static let sql = "SELECT seq, url, depth, role, hops, referrer, answered FROM mirror_claim($1, $2, $3, $4, $5, $6)"
        let values: [any PostgresEncodable & Sendable]

        func decodeRow(_ row: PostgresRow) throws -> (Int64?, String?, Int?, String?, Int?, String?, Bool?) {
            try row.decode((Int64?, String?, Int?, String?, Int?, String?, Bool?).self)
        }
    }

    /// Puts the claims whose lease ended (their worker died or lost the database) back in the queue.
    private func returnExpiredClaims() async throws {
        try await requeue(nil)
    }

    /// Puts claims back in the queue: this worker's claims `seqs`, or (nil) every claim whose
    /// lease ended. Their hosts' queue heads move back to them.
    private func requeue(_ seqs: [Int64]?) async throws {
        try await database.query("""
            WITH returned AS (
                UPDATE mirror_urls SET state = 'queued', worker = NULL, lease_until = NULL
                WHERE crawl = \(crawl.id) AND state = 'claimed' AND CASE WHEN \(seqs)::int8[] IS NULL THEN lease_until < now()
                    ELSE worker = \(crawl.worker) AND seq = ANY(\(seqs)) END
                RETURNING host, seq)
            UPDATE mirror_hosts h SET head_seq = least(h.head_seq, r.seq)
            FROM (SELECT host, min(seq) AS seq FROM returned GROUP BY host) r
            WHERE h.crawl = \(crawl.id) AND h.host = r.host
            """)
    }

    public func release(_ item: CrawlItem) {
        active -= 1
        held[item.url] = nil
        unanswered.withLock { _ = $0.remove(item.url) }
        wakeWaiting()
    }

    /// Records what `url` became. Outcomes recorded while a write runs are written together by
    /// the next one, in one statement; each call returns once its outcome is written.
    public func record(_ url: String, _ outcome: CrawlOutcome, status: Int?, detail: String?) async throws {
        guard let seq = held[url] else { return }  // only claims are recorded, before they are released
        unwritten.append(Outcome(seq: seq, state: outcome.rawValue, status: status ?? -1, detail: detail ?? ""))
        if nextWrite == nil {
            let previous = lastWrite
            nextWrite = Task {
                _ = try? await previous?.value
                try await self.write(self.takeUnwritten())
            }
            lastWrite = nextWrite
        }
        try await nextWrite!.value
    }

    private struct Outcome: Sendable {
        let seq: Int64
        let state: String
        let status: Int
        let detail: String
    }

    private func takeUnwritten() -> [Outcome] {
        defer { unwritten = []; nextWrite = nil }
        return unwritten.sorted { $0.seq < $1.seq }
    }

    private func write(_ outcomes: [Outcome]) async throws {
        try await database.execute(OutcomesWrite(values: [
            crawl.worker, outcomes.map(\.seq), outcomes.map(\.state), outcomes.map(\.status), outcomes.map(\.detail),
        ]))
    }

    private struct OutcomesWrite: SharedStatement {
        static let sql = """
            UPDATE mirror_urls u SET state = o.state, status = nullif(o.status, -1), detail = nullif(o.detail, ''),
                lease_until = NULL, worker = $1,
                done_seq = CASE WHEN o.state = 'done' THEN nextval('mirror_done_seq') END
            FROM unnest($2::int8[], $3::text[], $4::int8[], $5::text[]) AS o(seq, state, status, detail)
            WHERE u.seq = o.seq
            """
        typealias Row = ()
        let values: [any PostgresEncodable & Sendable]
    }

    // MARK: The seen set

    /// The URLs this worker has not met: `add` inserts those the crawl has not seen either,
    /// and leaves the others, so a page's links cost no statement before their insert.
    public func firstSightings(_ urls: [String]) async throws -> [Bool] {
        urls.map { !seen.contains($0) }
    }

    /// Adds `url` to the URLs this worker knows were seen, forgetting them all past a million
    /// (the database still knows).
    private func remember(_ url: String) {
        if seen.count >= 1_000_000 { seen = [] }
        seen.insert(url)
    }

    public func isSeen(_ url: String) async throws -> Bool {
        if seen.contains(url) { return true }
        let known = try await database.query("SELECT 1 FROM mirror_urls WHERE crawl = \(crawl.id) AND url = \(url)") { _ in true }
        if !known.isEmpty { remember(url) }
        return !known.isEmpty
    }

    public func add(_ queued: [CrawlItem], skipped: [(CrawlItem, SkipReason)]) async throws -> [Bool] {
        guard !queued.isEmpty || !skipped.isEmpty else { return [] }
        let (crawl, robotsKnown, delay) = (self.crawl, !obeyRobots, self.delay)
        let inserted = try await database.retrying { connection in
            try await Self.insert(queued, skipped: skipped, crawl: crawl.id, robotsKnown: robotsKnown, delay: delay, on: connection,
                                  logger: crawl.database.logger)
        }
        for item in queued { remember(item.url) }
        for (item, _) in skipped { remember(item.url) }
        return skipped.map { inserted.contains($0.0.url) }
    }

    /// Inserts URLs not in the crawl yet, queued or skipped, with their hosts; returns the URLs inserted.
    static func insert(_ queued: [CrawlItem], skipped: [(CrawlItem, SkipReason)], crawl: Int64, robotsKnown: Bool, delay: Double,
                       on connection: PostgresConnection, logger: Logger) async throws -> Set<String> {
        let rows = queued.map { ($0, "queued", "") } + skipped.map { ($0.0, "skipped", $0.1.rawValue) }
        guard !rows.isEmpty else { return [] }
        let items = rows.map(\.0)
        let urls = items.map(\.url)
        let hosts = items.map(\.host)
        let depths = items.map(\.depth)
        let roles = items.map(\.role.rawValue)
        let hops = items.map(\.hops)
        let referrers = items.map { $0.referrer ?? "" }
        let states = rows.map(\.1)
        let details = rows.map(\.2)
        // One statement: the URLs, then the hosts of those inserted (in host order, as every
        // statement that locks several host rows and waits for them), each queue head moved
        // back to the first URL queued now. URLs the crawl had leave the host rows alone.
        let statement = Insert(values: [crawl, urls, hosts, depths, roles, hops, referrers, states, details, robotsKnown, delay])
        var inserted = Set<String>()
        for try await url in try await connection.execute(statement, logger: logger) { inserted.insert(url) }
        return inserted
    }

    private struct Insert: SharedStatement {
        static let sql = """
            WITH inserted AS (
                INSERT INTO mirror_urls (crawl, url, host, depth, role, hops, referrer, state, detail)
                SELECT $1::int8, r.url, r.host, r.depth, r.role, r.hops, nullif(r.referrer, ''), r.state, nullif(r.detail, '')
                FROM unnest($2::text[], $3::text[], $4::int8[], $5::text[], $6::int8[], $7::text[], $8::text[], $9::text[])
                     WITH ORDINALITY AS r(url, host, depth, role, hops, referrer, state, detail, position)
                ORDER BY r.position
                ON CONFLICT DO NOTHING
                RETURNING url, host, seq, state),
            heads AS (
                INSERT INTO mirror_hosts AS h (crawl, host, robots_known, delay, head_seq)
                SELECT $1::int8, i.host, $10::bool, $11::float8, min(i.seq) FILTER (WHERE i.state = 'queued')
                FROM inserted i GROUP BY i.host ORDER BY i.host
                ON CONFLICT (crawl, host) DO UPDATE SET head_seq = least(h.head_seq, excluded.head_seq))
            SELECT url FROM inserted
            """
        let values: [any PostgresEncodable & Sendable]

        func decodeRow(_ row: PostgresRow) throws -> String { try row.decode(String.self) }
    }

    // MARK: Politeness

    public func waitTurn(_ host: String) async throws -> Bool {
        if let delay = settled[host], delay == 0 { return false }
        while !Task.isCancelled {
            let booked = try await database.query("""
                UPDATE mirror_hosts SET busy_until = now() + \(leaseSeconds) * interval '1 second'
                WHERE crawl = \(crawl.id) AND host = \(host) AND busy_until < now() AND next_at <= now()
                RETURNING robots_known, delay
                """) { try $0.decode((Bool, Double).self) }
            if let (robotsKnown, delay) = booked.first {
                if robotsKnown { settled[host] = delay }
                guard robotsKnown && delay == 0 else { return true }
                try await endRequest(host)
                return false
            }
            let wait = try await database.query("""
                SELECT greatest(extract(epoch FROM greatest(next_at, busy_until) - now()), 0)::float8
                FROM mirror_hosts WHERE crawl = \(crawl.id) AND host = \(host)
                """) { try $0.decode(Double.self) }
            guard let seconds = wait.first else { return false }  // no row: a host no URL of the crawl named
            try await Task.sleep(for: .milliseconds(Int(min(max(seconds, 0.01), 0.25) * 1000)))
        }
        throw CancellationError()
    }

    public func requestEnded(_ host: String) async {
        try? await endRequest(host)
    }

    private func endRequest(_ host: String) async throws {
        try await database.query("""
            UPDATE mirror_hosts SET busy_until = '-infinity', next_at = now() + delay * interval '1 second'
            WHERE crawl = \(crawl.id) AND host = \(host)
            """)
    }

    public func robotsKnown(_ host: String, crawlDelay: Double?) async throws {
        guard settled[host] == nil else { return }
        let rows = try await database.query("""
            UPDATE mirror_hosts SET robots_known = true, delay = greatest(delay, \(crawlDelay ?? 0))
            WHERE crawl = \(crawl.id) AND host = \(host) RETURNING delay
            """) { try $0.decode(Double.self) }
        settled[host] = rows.first ?? delay
    }

    // MARK: Page budget

    public func admitPage(host: String) async throws -> SkipReason? {
        guard maxPages != nil || maxPagesPerHost != nil else { return nil }
        let (crawl, maxPages, maxPagesPerHost) = (self.crawl, self.maxPages, self.maxPagesPerHost)
        do {
            try await database.transaction { connection in
                let logger = crawl.database.logger
                if let maxPages, try await connection.query("""
                    UPDATE mirror_crawls SET pages_taken = pages_taken + 1 WHERE id = \(crawl.id) AND pages_taken < \(maxPages) RETURNING 1
                    """, logger: logger).collect().isEmpty {
                    throw BudgetFull(reason: .maxPages)
                }
                if let maxPagesPerHost, try await connection.query("""
                    INSERT INTO mirror_budgets AS b (crawl, authority, pages_taken) VALUES (\(crawl.id), \(host), 1)
                    ON CONFLICT (crawl, authority) DO UPDATE SET pages_taken = b.pages_taken + 1
                    WHERE b.pages_taken < \(maxPagesPerHost) RETURNING 1
                    """, logger: logger).collect().isEmpty {
                    throw BudgetFull(reason: .pagesPerHost)
                }
            }
            return nil
        } catch let full as BudgetFull {
            return full.reason
        }
    }

    /// A limit reached: the transaction that counted the page is rolled back.
    private struct BudgetFull: Error {
        let reason: SkipReason
    }

    public func pageEnded(host: String, saved: Bool) async {
        guard !saved else { return }
        if maxPages != nil {
            _ = try? await database.query("UPDATE mirror_crawls SET pages_taken = pages_taken - 1 WHERE id = \(crawl.id)")
        }
        if maxPagesPerHost != nil {
            _ = try? await database.query("""
                UPDATE mirror_budgets SET pages_taken = pages_taken - 1 WHERE crawl = \(crawl.id) AND authority = \(host)
                """)
        }
    }

    public func pendingCount() async -> Int {
        (try? await database.query("SELECT count(*) FROM mirror_urls WHERE crawl = \(crawl.id) AND state = 'queued'") {
            try $0.decode(Int.self)
        }.first) ?? 0
    }
}
