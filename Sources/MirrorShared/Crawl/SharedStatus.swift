import Foundation
import PostgresNIO

/// The progress of a shared crawl, read from the database (`mirror crawl --shared … --status`).
public struct SharedStatus: Sendable {
    public struct Worker: Sendable {
        public let name: String
        public let secondsSinceHeartbeat: Double
        public let done: Int
        public let stopped: Bool
    }

    public let name: String
    public let round: Int
    public let finished: Bool
    /// URLs by state: queued, claimed, done, skipped, failed.
    public let states: [String: Int]
    /// Claims beyond the first of a URL: fetches repeated because a worker died or lost its lease.
    public let repeatedClaims: Int
    public let workers: [Worker]

    /// The status of the crawl `name`; nil when the database has no crawl of that name.
    public static func read(_ database: SharedDatabase, name: String) async throws -> SharedStatus? {
        let crawls = try await database.query("SELECT id, round, finished_at IS NOT NULL FROM mirror_crawls WHERE name = \(name)") {
            try $0.decode((Int64, Int, Bool).self)
        }
        guard let (id, round, finished) = crawls.first else { return nil }
        var states: [String: Int] = [:]
        for (state, count) in try await database.query(
            "SELECT state, count(*) FROM mirror_urls WHERE crawl = \(id) GROUP BY state",
            read: {
                try $0.decode((String, Int).self)
            })
        { states[state] = count }
        let repeated =
            try await database.query(
                "SELECT coalesce(sum(fetches - 1), 0)::int8 FROM mirror_urls WHERE crawl = \(id) AND fetches > 1"
            ) { try $0.decode(Int.self) }.first ?? 0
        let workers = try await database.query(
            """
            SELECT w.worker, extract(epoch FROM now() - w.heartbeat)::float8, w.stopped,
                (SELECT count(*) FROM mirror_urls u WHERE u.crawl = w.crawl AND u.worker = w.worker AND u.state = 'done')
            FROM mirror_workers w WHERE w.crawl = \(id) ORDER BY w.started_at
            """
        ) { row in
            let (name, age, stopped, done) = try row.decode((String, Double, Bool, Int).self)
            return Worker(name: name, secondsSinceHeartbeat: age, done: done, stopped: stopped)
        }
        return SharedStatus(name: name, round: round, finished: finished, states: states, repeatedClaims: repeated, workers: workers)
    }

    /// The status for a person: the crawl's totals, then a line per worker.
    public var text: String {
        var lines = ["crawl \(name), round \(round): \(finished ? "finished" : "running")"]
        lines.append(
            ["queued", "claimed", "done", "skipped", "failed"].map { "\($0) \(states[$0, default: 0])" }.joined(separator: ", ")
                + ", repeated claims \(repeatedClaims)")
        for worker in workers {
            let state = worker.stopped ? "left" : "heartbeat \(Int(worker.secondsSinceHeartbeat.rounded())) s ago"
            lines.append("  worker \(worker.name): done \(worker.done), \(state)")
        }
        return lines.joined(separator: "\n")
    }
}
