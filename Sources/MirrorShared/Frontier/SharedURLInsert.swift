import MirrorCrawl
import PostgresNIO

/// Adds URLs to a shared crawl: the seen set is `mirror_urls`' unique key, so a URL another
/// worker inserted first is left alone, and each host's queue head moves back to the first URL
/// queued now.
enum SharedURLInsert {
    /// Inserts URLs not in the crawl yet, queued or skipped, with their hosts; returns the URLs inserted.
    static func insert(
        _ queued: [CrawlItem], skipped: [(CrawlItem, SkipReason)], crawl: Int64, robotsKnown: Bool, delay: Double,
        on connection: SharedConnection
    ) async throws -> Set<String> {
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
        let statement = Statement(values: [crawl, urls, hosts, depths, roles, hops, referrers, states, details, robotsKnown, delay])
        var inserted = Set<String>()
        for try await url in try await connection.execute(statement) { inserted.insert(url) }
        return inserted
    }

    private struct Statement: SharedStatement {
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
}
