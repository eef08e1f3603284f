import Crypto
import Foundation
public import MirrorCache
import MirrorCore
public import MirrorCrawl
import NIOCore
import NIOHTTP1
import PostgresNIO

/// The responses of a shared crawl, in PostgreSQL: a row per URL in `mirror_responses` (status,
/// headers, times, body digest) naming a body in `mirror_bodies`, stored once by SHA-256 in
/// parts of 1 MiB. A body's later parts are written in one transaction before the statement
/// that writes its first part and the row naming it, so a row always names a whole body. Every
/// response a worker receives is shared; a worker about to request a URL another worker
/// received takes it from here into its own cache.
public struct SharedResponses: ResponseExchange {
    private let crawl: SharedCrawl
    private let store: CacheStore
    /// The frontier whose claims this worker fetches: it knows the URLs claimed with no shared
    /// response, whose first request is not looked up here.
    private let frontier: SharedFrontier?
    static let partSize = 1 << 20

    public init(crawl: SharedCrawl, store: CacheStore, frontier: SharedFrontier? = nil) {
        self.crawl = crawl
        self.store = store
        self.frontier = frontier
    }

    private var database: SharedDatabase { crawl.database }

    /// One row of `mirror_responses`.
    public struct Row: Sendable {
        public let url: String
        let varyKey: String
        let status: Int
        let headers: String
        let requestTime: Double
        let responseTime: Double
        let digest: String
        let size: Int
        /// The whole body, when it is one part (most are): read with the row.
        let body: ByteBuffer?

        static func read(_ row: PostgresRow) throws -> Row {
            let (url, varyKey, status, headers, requestTime, responseTime, digest, size, body) =
                try row.decode((String, String, Int, String, Double, Double, String, Int, ByteBuffer?).self)
            return Row(
                url: url, varyKey: varyKey, status: status, headers: headers, requestTime: requestTime,
                responseTime: responseTime, digest: digest, size: size, body: body)
        }
    }

    /// The rows `responses` names `r` (rows of `mirror_responses`), each with its body when that is one part.
    private static func selected(from responses: String) -> String {
        """
        SELECT r.url, r.vary_key, r.status, r.headers, r.request_time, r.response_time, r.digest, r.size, b.bytes
        FROM \(responses) LEFT JOIN mirror_bodies b ON b.digest = r.digest AND b.part = 0 AND b.parts = 1
        """
    }

    public func response(for request: CacheRequest) async throws -> CacheResponse? {
        guard request.method == .GET, frontier?.claimedUnanswered(request.url) != true else { return nil }
        let rows = try await database.query(
            PostgresQuery(
                unsafeSQL: """
                    \(Self.selected(from: "mirror_responses r")) WHERE r.crawl = $1 AND r.url = $2 LIMIT 1
                    """, binds: Self.binds(crawl.id, request.url)), read: Row.read)
        guard let row = rows.first else { return nil }
        return try await response(of: row)
    }

    public func share(_ response: CacheResponse, for request: CacheRequest) async throws {
        guard request.method == .GET, response.outcome != .shared, response.outcome != .offlineMiss else { return }
        try await response.body.arrival()
        let head =
            response.entry?.head
            ?? CachedResponseHead(
                status: response.status, headers: response.headers,
                requestTime: Date().timeIntervalSince1970,
                responseTime: Date().timeIntervalSince1970)
        let bytes = try response.body.collect()
        let digest = response.entry?.digest ?? Hex.string(SHA256.hash(data: bytes))
        let headers = String(decoding: try JSONEncoder().encode(head.headers.map { [$0.name, $0.value] }), as: UTF8.self)
        let parts = max(1, (bytes.count + Self.partSize - 1) / Self.partSize)
        try await storeParts(bytes, digest: digest, parts: parts)
        try await database.execute(
            Share(values: [
                digest, parts, ByteBuffer(bytes: bytes.prefix(Self.partSize)), crawl.id, request.url, response.entry?.varyKey ?? "",
                head.status, headers, head.requestTime, head.responseTime, bytes.count, crawl.worker,
            ]))
    }

    /// A body's first part and the row that names it, in one statement: most bodies have one part.
    private struct Share: SharedStatement {
        static let sql = """
            WITH body AS (
                INSERT INTO mirror_bodies (digest, part, parts, bytes) VALUES ($1, 0, $2, $3) ON CONFLICT DO NOTHING)
            INSERT INTO mirror_responses (crawl, url, vary_key, status, headers, request_time, response_time, digest, size, worker)
            VALUES ($4, $5, $6, $7, $8, $9, $10, $1, $11, $12)
            ON CONFLICT DO NOTHING
            """
        typealias Row = ()
        let values: [any PostgresEncodable & Sendable]
    }

    /// Brings the responses of the crawl into this worker's cache, except those of `saved` (URLs
    /// already brought in) and those it has; returns how many it brought. Without `includingOwn`,
    /// only those other workers shared: a worker that saves what it fetches has its own. The
    /// rows' keys are read 5,000 at a time, and the rows this worker lacks with their bodies.
    public func bringAllIn(except saved: Set<String> = [], includingOwn: Bool = true) async throws -> Int {
        var after = ""
        var brought = 0
        while true {
            let keys = try await database.query(
                """
                SELECT url, vary_key, digest FROM mirror_responses
                WHERE crawl = \(crawl.id) AND url > \(after) AND (\(includingOwn) OR worker <> \(crawl.worker)) ORDER BY url LIMIT 5000
                """
            ) { try $0.decode((String, String, String).self) }
            guard let last = keys.last else { return brought }
            let missing = try keys.filter { url, varyKey, digest in
                try !saved.contains(url) && store.entries(for: url).first(where: { $0.digest == digest && $0.varyKey == varyKey }) == nil
            }.map(\.0)
            for row in try await rows(of: missing) {
                _ = try await bringIn(row)
                brought += 1
            }
            after = last.0
        }
    }

    /// What other workers did after the `done` mark (`mirror_urls.done_seq`), 500 URLs at a
    /// time: the last mark read (nil when there is none) and the responses of those URLs. A URL
    /// done in a transaction that ends later than a later mark's may be missed here;
    /// `othersDone()` lists all.
    ///
    /// The marks and the responses are two reads: the responses are read by their key (`rows(of:)`).
    public func othersDone(after done: Int64) async throws -> (last: Int64?, rows: [Row]) {
        let marks = try await database.query(
            """
            SELECT done_seq, url FROM mirror_urls WHERE crawl = \(crawl.id) AND done_seq > \(done) AND worker <> \(crawl.worker)
            ORDER BY done_seq LIMIT 500
            """
        ) { try $0.decode((Int64, String).self) }
        guard let last = marks.last?.0 else { return (nil, []) }
        return (last, try await rows(of: marks.map(\.1)))
    }

    /// Every URL another worker did.
    public func othersDone() async throws -> [String] {
        try await database.query(
            """
            SELECT url FROM mirror_urls WHERE crawl = \(crawl.id) AND state = 'done' AND worker <> \(crawl.worker)
            """
        ) { try $0.decode(String.self) }
    }

    /// The rows of `urls` (those that have one), read 500 at a time.
    ///
    /// Each URL's rows are read by their key, in a subquery the planner keeps (`OFFSET 0`): given
    /// the URLs as a list, a planner that takes the crawl for a few rows reads every row of it and
    /// keeps those of the list.
    public func rows(of urls: [String]) async throws -> [Row] {
        var rows: [Row] = []
        for start in stride(from: 0, to: urls.count, by: 500) {
            let batch = Array(urls[start..<min(urls.count, start + 500)])
            var binds = PostgresBindings()
            binds.append(crawl.id)
            binds.append(batch)
            rows += try await database.query(
                PostgresQuery(
                    unsafeSQL: Self.selected(
                        from: """
                            unnest($2::text[]) AS k(url)
                            CROSS JOIN LATERAL (SELECT * FROM mirror_responses r WHERE r.crawl = $1 AND r.url = k.url OFFSET 0) r
                            """), binds: binds), read: Row.read)
        }
        return rows
    }

    /// `row`'s response, from this worker's cache, where it is brought first (`.shared`).
    public func response(of row: Row) async throws -> CacheResponse {
        let entry = try await bringIn(row)
        guard let body = store.body(of: entry) else { throw SharedCrawlError.damagedBody(digest: row.digest) }
        return CacheResponse(status: entry.status, headers: entry.headers, body: body, outcome: .shared, entry: entry)
    }

    /// `row`'s response in this worker's cache: the entry there when it has the same body,
    /// else stored now with the body read with the row, or from the shared store's parts.
    private func bringIn(_ row: Row) async throws -> CacheEntry {
        if let local = try store.entries(for: row.url).first(where: { $0.digest == row.digest && $0.varyKey == row.varyKey }) {
            return local
        }
        let pairs = (try? JSONDecoder().decode([[String]].self, from: Data(row.headers.utf8))) ?? []
        let headers = HTTPHeaders(pairs.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil })
        let writer = try store.makeBodyWriter()
        var written = 0
        let parts =
            if let body = row.body { [body] } else {
                try await database.query("SELECT bytes FROM mirror_bodies WHERE digest = \(row.digest) ORDER BY part") {
                    try $0.decode(ByteBuffer.self)
                }
            }
        for part in parts {
            try part.withUnsafeReadableBytes { try writer.write($0) }
            written += part.readableBytes
        }
        let head = CachedResponseHead(status: row.status, headers: headers, requestTime: row.requestTime, responseTime: row.responseTime)
        let entry = try store.store(url: row.url, varyKey: row.varyKey, head: head, body: writer)
        guard entry.digest == row.digest, written == row.size else {
            try store.remove(url: row.url)
            throw SharedCrawlError.damagedBody(digest: row.digest)
        }
        return entry
    }

    /// Writes the parts of `bytes` after the first under `digest`, all in one transaction, unless
    /// the store has the body.
    private func storeParts(_ bytes: [UInt8], digest: String, parts: Int) async throws {
        guard parts > 1 else { return }
        let present = try await database.query("SELECT 1 FROM mirror_bodies WHERE digest = \(digest) AND part = 0") { _ in true }
        guard present.isEmpty else { return }
        try await database.transaction { connection in
            for part in 1..<parts {
                let slice = bytes[part * Self.partSize..<min(bytes.count, (part + 1) * Self.partSize)]
                try await connection.query(
                    """
                    INSERT INTO mirror_bodies (digest, part, parts, bytes) VALUES (\(digest), \(part), \(parts), \(ByteBuffer(bytes: slice)))
                    ON CONFLICT DO NOTHING
                    """)
            }
        }
    }

    private static func binds(_ crawl: Int64, _ text: String) -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(crawl)
        binds.append(text)
        return binds
    }
}
