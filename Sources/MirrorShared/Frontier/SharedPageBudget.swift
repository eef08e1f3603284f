import MirrorCrawl

/// `--max-pages` and `--max-pages-per-host` of a shared crawl, counting the pages of all
/// workers: a page is counted in the database when it is admitted, and given back when it
/// ends unsaved.
struct SharedPageBudget: Sendable {
    let crawl: SharedCrawl
    let maxPages: Int?
    let maxPagesPerHost: Int?

    private var database: SharedDatabase { crawl.database }

    /// Counts a page of `host` under the limits and returns nil, or returns the limit reached.
    func admitPage(host: String) async throws -> SkipReason? {
        guard maxPages != nil || maxPagesPerHost != nil else { return nil }
        do {
            try await database.transaction { connection in
                if let maxPages,
                    try await connection.query(
                        """
                        UPDATE mirror_crawls SET pages_taken = pages_taken + 1 WHERE id = \(crawl.id) AND pages_taken < \(maxPages) RETURNING 1
                        """
                    ).collect().isEmpty
                {
                    throw BudgetFull(reason: .maxPages)
                }
                if let maxPagesPerHost,
                    try await connection.query(
                        """
                        INSERT INTO mirror_budgets AS b (crawl, authority, pages_taken) VALUES (\(crawl.id), \(host), 1)
                        ON CONFLICT (crawl, authority) DO UPDATE SET pages_taken = b.pages_taken + 1
                        WHERE b.pages_taken < \(maxPagesPerHost) RETURNING 1
                        """
                    ).collect().isEmpty
                {
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

    /// An admitted page ended; unsaved, its place goes back to the count.
    func pageEnded(host: String, saved: Bool) async {
        guard !saved else { return }
        if maxPages != nil {
            _ = try? await database.query("UPDATE mirror_crawls SET pages_taken = pages_taken - 1 WHERE id = \(crawl.id)")
        }
        if maxPagesPerHost != nil {
            _ = try? await database.query(
                """
                UPDATE mirror_budgets SET pages_taken = pages_taken - 1 WHERE crawl = \(crawl.id) AND authority = \(host)
                """)
        }
    }
}
