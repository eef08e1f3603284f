/// Every URL the crawl discovered and what became of it, so `--resume` continues a killed crawl
/// without refetching what is done.
public struct URLRecords: Sendable {
    let log: JournalLog

    /// Records newly discovered URLs as queued.
    func queued(_ items: [CrawlItem]) throws {
        guard !items.isEmpty else { return }
        try log.append(.queued(items))
    }

    /// Records the end of one URL.
    func finished(_ url: String, _ outcome: CrawlOutcome, status: Int?, detail: String?) throws {
        try log.append(.finished(url: url, outcome: outcome, status: status, detail: detail))
    }

    /// What an interrupted crawl left: every URL it knew, and those still to fetch in order.
    func resumePoint() throws -> (known: [String], pending: [CrawlItem]) {
        try log.committed { database in
            let known = try database.statement("SELECT url FROM urls").rows { $0.string(0) }
            let pending = try database.statement(
                "SELECT url, depth, role, hops, referrer FROM urls WHERE state = 'queued' ORDER BY seq"
            ).rows { row in
                CrawlItem(
                    url: row.string(0), depth: row.int(1), role: CrawlRole(rawValue: row.string(2)) ?? .page,
                    hops: row.int(3), referrer: row.optionalString(4))
            }
            return (known, pending)
        }
    }
}
