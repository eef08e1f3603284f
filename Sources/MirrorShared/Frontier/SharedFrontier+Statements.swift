import PostgresNIO

/// The statements a shared crawl's frontier sends for every claim and every batch of outcomes,
/// prepared once per connection.
extension SharedFrontier {
    struct ClaimCall: SharedStatement {
        static let sql = "SELECT seq, url, depth, role, hops, referrer, answered FROM mirror_claim($1, $2, $3, $4, $5, $6)"
        let values: [any PostgresEncodable & Sendable]

        func decodeRow(_ row: PostgresRow) throws -> (Int64?, String?, Int?, String?, Int?, String?, Bool?) {
            try row.decode((Int64?, String?, Int?, String?, Int?, String?, Bool?).self)
        }
    }

    struct Outcome: Sendable {
        let seq: Int64
        let state: String
        let status: Int
        let detail: String
    }

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
