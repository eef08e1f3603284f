/// The leases of a worker's claims in a shared crawl: renewed while the worker lives, and the
/// claims put back in the queue when the worker gives them back or their lease ended (their
/// worker died or lost the database). The database's clock times them.
struct SharedLeases: Sendable {
    let crawl: SharedCrawl

    private var database: SharedDatabase { crawl.database }

    /// Extends the leases of this worker's claims `seqs`.
    func renew(_ seqs: [Int64]) async throws {
        try await database.query(
            """
            UPDATE mirror_urls SET lease_until = now() + \(crawl.leaseSeconds) * interval '1 second'
            WHERE seq = ANY(\(seqs)) AND state = 'claimed' AND worker = \(crawl.worker)
            """)
    }

    /// Puts claims back in the queue: this worker's claims `seqs`, or (nil) every claim whose
    /// lease ended. Their hosts' queue heads move back to them.
    func requeue(_ seqs: [Int64]?) async throws {
        try await database.query(
            """
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
}
