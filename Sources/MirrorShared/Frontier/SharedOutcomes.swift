import MirrorCrawl
import PostgresNIO

/// The outcomes of a worker's claims in a shared crawl, written in batches: outcomes recorded
/// while a write runs are written together by the next one, in one statement, and each write
/// starts once the one before it ended.
actor SharedOutcomes {
    private let crawl: SharedCrawl
    /// Outcomes recorded and not written yet: the next write takes them all.
    private var unwritten: [Outcome] = []
    /// The write that will take the outcomes recorded now, once the write before it ended.
    private var nextWrite: Task<Void, any Error>?
    private var lastWrite: Task<Void, any Error>?

    init(crawl: SharedCrawl) {
        self.crawl = crawl
    }

    /// Records what the claim `seq` became; returns once it is written.
    func record(seq: Int64, _ outcome: CrawlOutcome, status: Int?, detail: String?) async throws {
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

    private func takeUnwritten() -> [Outcome] {
        defer {
            unwritten = []
            nextWrite = nil
        }
        return unwritten.sorted { $0.seq < $1.seq }
    }

    private func write(_ outcomes: [Outcome]) async throws {
        try await crawl.database.execute(
            OutcomesWrite(values: [
                crawl.worker, outcomes.map(\.seq), outcomes.map(\.state), outcomes.map(\.status), outcomes.map(\.detail),
            ]))
    }

    /// An outcome as the write takes it: no status is -1, no detail is empty.
    struct Outcome: Sendable {
        let seq: Int64
        let state: String
        let status: Int
        let detail: String
    }

    /// The statement of every batch of outcomes, prepared once per connection.
    struct OutcomesWrite: SharedStatement {
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
}
