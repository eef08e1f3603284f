import Foundation
import MirrorCore
public import MirrorCrawl
import PostgresNIO

/// One crawl in the shared database, as a worker joined it. The first worker of a name creates
/// it; the others join, and are refused when an option every worker must share differs. A round
/// that finished less than a lease ago, or whose last workers are still making their folders,
/// is finished for a worker that joins it: that worker only makes the folder (it started late).
/// One that finished longer ago with no worker left starts a new round (a re-crawl: the
/// frontier starts from the seeds again, the workers' caches revalidate).
public struct SharedCrawl: Sendable {
    public let database: SharedDatabase
    public let id: Int64
    public let name: String
    /// This worker's name: host name, process id and a random suffix.
    public let worker: String
    public let round: Int
    /// When this round started (seconds since 1970, the database's clock).
    public let startedAt: Double
    /// Whether this worker began the round (it queues the seeds).
    public let began: Bool
    /// Whether the round was already finished when this worker joined.
    public let alreadyFinished: Bool
    /// How long a claim and a worker's heartbeat last without renewal.
    public let lease: Duration
    /// `lease` in seconds, as the statements give it to the database.
    var leaseSeconds: Double { lease.seconds }

    /// Joins the crawl `name` (created if need be) with `options`: the values, by option name,
    /// that every worker of the crawl must share.
    /// A round that begins has `configuration`'s seeds queued in the same transaction.
    public static func join(
        _ database: SharedDatabase, name: String, options: KeyValuePairs<String, String>,
        configuration: CrawlConfiguration, lease: Duration
    ) async throws -> SharedCrawl {
        let seeds = configuration.seeds.compactMap(URLNormalizer.normalize).map {
            CrawlItem(url: $0, depth: 0, role: .page, hops: 0, referrer: nil)
        }
        let queueSeeds = { @Sendable (connection: SharedConnection, crawl: Int64) async throws in
            _ = try await SharedURLInsert.insert(
                seeds, skipped: [], crawl: crawl, robotsKnown: !configuration.obeyRobots,
                delay: configuration.delay ?? 0, on: connection)
        }
        let worker = "\(ProcessInfo.processInfo.hostName):\(getpid()):\(UUID().uuidString.prefix(6).lowercased())"
        let encoded = String(decoding: try JSONEncoder().encode(options.map { [$0.key, $0.value] }), as: UTF8.self)
        let leaseSeconds = Double(lease.components.seconds)
        let joined = try await database.transaction { connection -> (Int64, Int, Double, Bool, Bool) in
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\(name)))")
            var found: (Int64, String, Int, Double, Double?)?
            for try await row in try await connection.query(
                "SELECT id, options, round, started_at, finished_at FROM mirror_crawls WHERE name = \(name)"
            )
            .decode((Int64, String, Int, Double, Double?).self) { found = row }
            guard let (id, storedOptions, round, startedAt, finishedAt) = found else {
                var created: (Int64, Double)?
                for try await row in try await connection.query(
                    """
                    INSERT INTO mirror_crawls (name, options, started_at) VALUES (\(name), \(encoded), extract(epoch FROM now()))
                    RETURNING id, started_at
                    """
                ).decode((Int64, Double).self) { created = row }
                guard let (id, startedAt) = created else {
                    throw SharedCrawlError.unreachable(address: database.address, reason: "no crawl row")
                }
                try await queueSeeds(connection, id)
                try await register(worker, crawl: id, round: 1, on: connection)
                return (id, 1, startedAt, true, false)
            }
            try check(options, against: storedOptions, crawl: name)
            guard let finishedAt else {
                try await register(worker, crawl: id, round: round, on: connection)
                return (id, round, startedAt, false, false)
            }
            var late = false
            for try await value in try await connection.query(
                """
                SELECT extract(epoch FROM now()) - \(finishedAt) < \(leaseSeconds) OR EXISTS (SELECT 1 FROM mirror_workers
                    WHERE crawl = \(id) AND NOT stopped AND heartbeat > now() - \(leaseSeconds) * interval '1 second')
                """
            ).decode(Bool.self) { late = value }
            if late {
                try await register(worker, crawl: id, round: round, on: connection)
                return (id, round, startedAt, false, true)
            }
            // A new round: the frontier and the responses of the last one go (bodies stay, by digest).
            try await connection.query("DELETE FROM mirror_urls WHERE crawl = \(id)")
            try await connection.query("DELETE FROM mirror_hosts WHERE crawl = \(id)")
            try await connection.query("DELETE FROM mirror_budgets WHERE crawl = \(id)")
            try await connection.query("DELETE FROM mirror_responses WHERE crawl = \(id)")
            try await connection.query("DELETE FROM mirror_renders WHERE crawl = \(id)")
            try await connection.query("DELETE FROM mirror_workers WHERE crawl = \(id)")
            var restarted = startedAt
            for try await value in try await connection.query(
                """
                UPDATE mirror_crawls SET round = round + 1, started_at = extract(epoch FROM now()), finished_at = NULL, pages_taken = 0
                WHERE id = \(id) RETURNING started_at
                """
            ).decode(Double.self) { restarted = value }
            try await queueSeeds(connection, id)
            try await register(worker, crawl: id, round: round + 1, on: connection)
            return (id, round + 1, restarted, true, false)
        }
        return SharedCrawl(
            database: database, id: joined.0, name: name, worker: worker, round: joined.1, startedAt: joined.2,
            began: joined.3, alreadyFinished: joined.4, lease: lease)
    }

    private static func register(_ worker: String, crawl: Int64, round: Int, on connection: SharedConnection) async throws {
        try await connection.query(
            """
            INSERT INTO mirror_workers (crawl, worker, round) VALUES (\(crawl), \(worker), \(round))
            ON CONFLICT (crawl, worker) DO UPDATE SET heartbeat = now(), stopped = false
            """)
    }

    /// Refuses a worker whose shared options differ from the crawl's, naming the first that does.
    private static func check(_ options: KeyValuePairs<String, String>, against stored: String, crawl: String) throws {
        let pairs = (try? JSONDecoder().decode([[String]].self, from: Data(stored.utf8))) ?? []
        let known = Dictionary(pairs.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil }, uniquingKeysWith: { first, _ in first })
        for (option, value) in options where known[option] != value {
            throw SharedCrawlError.optionsDiffer(
                crawl: crawl, option: option, crawlValue: Self.shown(known[option]),
                workerValue: Self.shown(value))
        }
    }

    private static func shown(_ value: String?) -> String {
        guard let value else { return "(unset)" }
        return value.isEmpty ? "(none)" : value
    }

    /// Marks the round finished (once: by the first worker to find its frontier empty).
    func markFinished() async throws {
        try await database.query(
            "UPDATE mirror_crawls SET finished_at = extract(epoch FROM now()) WHERE id = \(id) AND finished_at IS NULL")
    }

    /// Keeps this worker's row alive, with its report so far.
    public func heartbeat(report: String?) async throws {
        try await database.query(
            "UPDATE mirror_workers SET heartbeat = now(), report = coalesce(\(report), report) WHERE crawl = \(id) AND worker = \(worker)")
    }

    /// This worker is leaving: its row says so, with its last report.
    public func leave(report: String?) async {
        _ = try? await database.query(
            """
            UPDATE mirror_workers SET heartbeat = now(), stopped = true, report = coalesce(\(report), report)
            WHERE crawl = \(id) AND worker = \(worker)
            """)
    }

    /// Every worker's last report in this round (JSON of `CrawlReport`).
    public func reports() async throws -> [String] {
        try await database.query(
            "SELECT report FROM mirror_workers WHERE crawl = \(id) AND round = \(round) AND report IS NOT NULL ORDER BY worker"
        ) {
            try $0.decode(String.self)
        }
    }
}
