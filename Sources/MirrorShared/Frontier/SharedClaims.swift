import MirrorCrawl
import PostgresNIO

/// The claims of a worker of a shared crawl: one call of `mirror_claim` takes a batch of queued
/// URLs and marks them claimed by this worker until a lease ends.
struct SharedClaims: Sendable {
    let crawl: SharedCrawl
    /// URLs of a host handed out at once across the workers, at most (`--per-host`).
    let perHost: Int

    /// Claims up to `limit` queued URLs, oldest first, of the hosts with the oldest queue heads
    /// and free slots that no other claim holds. With `askingIfDone`, a claim of nothing also
    /// says whether the whole crawl's frontier is empty.
    func claim(limit: Int, askingIfDone: Bool) async throws -> Claim {
        let rows = try await crawl.database.execute(
            ClaimCall(values: [crawl.id, crawl.worker, limit, perHost, crawl.leaseSeconds, askingIfDone]))
        var claimed: [Claimed] = []
        var frontierEmpty = false
        for (seq, url, depth, role, hops, referrer, answered) in rows {
            guard let seq, let url, let depth, let role, let hops, let answered else {
                frontierEmpty = true
                continue
            }
            let item = CrawlItem(url: url, depth: depth, role: CrawlRole(rawValue: role) ?? .page, hops: hops, referrer: referrer)
            claimed.append(Claimed(seq: seq, item: item, answered: answered))
        }
        let items = claimed.sorted { $0.seq < $1.seq }.map(\.item)
        return Claim(claimed: claimed, items: items, frontierEmpty: frontierEmpty)
    }

    /// What a claim took, and whether it found nothing queued nor claimed by anyone.
    struct Claim: Sendable {
        /// The URLs claimed, in the order the database returned them.
        let claimed: [Claimed]
        /// The URLs claimed, in claim order (by `seq`): the order they are handed out.
        let items: [CrawlItem]
        let frontierEmpty: Bool
    }

    /// A URL claimed, with its `seq` and whether a response was shared for it at the claim.
    struct Claimed: Sendable {
        let seq: Int64
        let item: CrawlItem
        let answered: Bool
    }

    /// The statement of every claim, prepared once per connection.
    struct ClaimCall: SharedStatement {
        static let sql = "SELECT seq, url, depth, role, hops, referrer, answered FROM mirror_claim($1, $2, $3, $4, $5, $6)"
        let values: [any PostgresEncodable & Sendable]

        func decodeRow(_ row: PostgresRow) throws -> (Int64?, String?, Int?, String?, Int?, String?, Bool?) {
            try row.decode((Int64?, String?, Int?, String?, Int?, String?, Bool?).self)
        }
    }
}
