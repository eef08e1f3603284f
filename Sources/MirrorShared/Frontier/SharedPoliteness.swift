import MirrorLock

/// The politeness of a shared crawl, across its workers: a host row of `mirror_hosts` is booked
/// by each request that must be spaced (`--delay`, `Crawl-delay`), one such request at a time,
/// the next starting a delay after its end, timed by the database's clock.
final class SharedPoliteness: Sendable {
    private let crawl: SharedCrawl
    private let database: SharedDatabase
    /// `--delay`, for a host whose row says nothing else.
    private let delay: Double
    /// Hosts whose robots.txt is known, with their delay: they never change again in a round.
    private let settled = Locked<[String: Double]>([:])

    init(crawl: SharedCrawl, delay: Double) {
        self.crawl = crawl
        database = crawl.database
        self.delay = delay
    }

    /// Waits until `host` may receive another request and books it; true when `requestEnded` must follow.
    func waitTurn(_ host: String) async throws -> Bool {
        if let delay = settled.withLock({ $0[host] }), delay == 0 { return false }
        while !Task.isCancelled {
            let booked = try await database.query(
                """
                UPDATE mirror_hosts SET busy_until = now() + \(crawl.leaseSeconds) * interval '1 second'
                WHERE crawl = \(crawl.id) AND host = \(host) AND busy_until < now() AND next_at <= now()
                RETURNING robots_known, delay
                """
            ) { try $0.decode((Bool, Double).self) }
            if let (robotsKnown, delay) = booked.first {
                if robotsKnown { settled.withLock { $0[host] = delay } }
                guard robotsKnown && delay == 0 else { return true }
                try await endRequest(host)
                return false
            }
            let wait = try await database.query(
                """
                SELECT greatest(extract(epoch FROM greatest(next_at, busy_until) - now()), 0)::float8
                FROM mirror_hosts WHERE crawl = \(crawl.id) AND host = \(host)
                """
            ) { try $0.decode(Double.self) }
            guard let seconds = wait.first else { return false }  // no row: a host no URL of the crawl named
            try await Task.sleep(for: .milliseconds(Int(min(max(seconds, 0.01), 0.25) * 1000)))
        }
        throw CancellationError()
    }

    /// A request that waited its turn has ended: the next one may start a delay after now.
    func requestEnded(_ host: String) async {
        try? await endRequest(host)
    }

    private func endRequest(_ host: String) async throws {
        try await database.query(
            """
            UPDATE mirror_hosts SET busy_until = '-infinity', next_at = now() + delay * interval '1 second'
            WHERE crawl = \(crawl.id) AND host = \(host)
            """)
    }

    /// `host`'s robots.txt was read: its other URLs may start, `crawlDelay` apart at least.
    func robotsKnown(_ host: String, crawlDelay: Double?) async throws {
        guard settled.withLock({ $0[host] }) == nil else { return }
        let rows = try await database.query(
            """
            UPDATE mirror_hosts SET robots_known = true, delay = greatest(delay, \(crawlDelay ?? 0))
            WHERE crawl = \(crawl.id) AND host = \(host) RETURNING delay
            """
        ) { try $0.decode(Double.self) }
        settled.withLock { $0[host] = rows.first ?? delay }
    }
}
