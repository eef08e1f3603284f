import MirrorHTML
import MirrorSQLite
import Synchronization

/// Every URL the crawl discovered and what became of it, in SQLite under the output
/// folder, so `--resume` continues a killed crawl without refetching what is done.
public final class CrawlJournal: Sendable {
    enum State: String {
        case queued, done, skipped, failed
    }

    private let database: Mutex<SQLiteDatabase>

    /// Opens the journal at `path`; `fresh` starts over (a new crawl), otherwise it resumes.
    public init(path: String, fresh: Bool) throws {
        let connection = try SQLiteDatabase(path: path)
        _ = try connection.scalar("PRAGMA journal_mode=WAL")
        try connection.execute("PRAGMA synchronous=NORMAL")
        if fresh { try connection.execute("DROP TABLE IF EXISTS urls") }
        try connection.execute("""
            CREATE TABLE IF NOT EXISTS urls (
                seq INTEGER PRIMARY KEY,
                url TEXT NOT NULL UNIQUE,
                depth INTEGER NOT NULL,
                role TEXT NOT NULL,
                hops INTEGER NOT NULL,
                referrer TEXT,
                state TEXT NOT NULL,
                status INTEGER,
                detail TEXT
            )
            """)
        // Kept across crawls into the same folder: each page's resolved links and located
        // references (`StoredReferences`), by body. ("links" was the table of the version before.)
        try connection.execute("DROP TABLE IF EXISTS links")
        try connection.execute("""
            CREATE TABLE IF NOT EXISTS pages (
                url TEXT PRIMARY KEY, key TEXT NOT NULL, links BLOB NOT NULL, refs BLOB NOT NULL)
            """)
        database = Mutex(connection)
    }

    /// The links recorded for `url` when its page had the same `key` (body digest, type, settings).
    func links(of url: String, key: String) throws -> PageLinks? {
        try blob("links", of: url, key: key).flatMap(PageLinks.init(encoded:))
    }

    /// The located references recorded for the HTML page `url` when it had the same `key`.
    func references(of url: String, key: String) throws -> [HTMLReference]? {
        try blob("refs", of: url, key: key).flatMap(StoredReferences.decode)
    }

    /// Records a page's links and, for an HTML page, its located references.
    func record(_ links: PageLinks, references: [HTMLReference], of url: String, key: String) throws {
        let refs = StoredReferences.encode(references)
        try database.withLock { database in
            try database.statement("INSERT OR REPLACE INTO pages (url, key, links, refs) VALUES (?, ?, ?, ?)")
                .run([.text(url), .text(key), .blob(links.encoded), .blob(refs)])
        }
    }

    /// The column `column` ("links" or "refs") of `url`'s row in `pages`, when its key is `key`.
    private func blob(_ column: StaticString, of url: String, key: String) throws -> [UInt8]? {
        try database.withLock { database in
            try database.statement("SELECT \(column) FROM pages WHERE url = ? AND key = ?")
                .rows([.text(url), .text(key)]) { $0.blob(0) }.first
        }
    }

    /// Records newly discovered URLs as queued (one transaction for a page's links).
    func queued(_ items: [CrawlItem]) throws {
        guard !items.isEmpty else { return }
        try database.withLock { database in
            try database.transaction {
                let insert = try database.statement(
                    "INSERT OR IGNORE INTO urls (url, depth, role, hops, referrer, state) VALUES (?, ?, ?, ?, ?, 'queued')")
                for item in items {
                    try insert.run([.text(item.url), .integer(Int64(item.depth)), .text(item.role.rawValue),
                                    .integer(Int64(item.hops)), SQLiteValue(item.referrer)])
                }
            }
        }
    }

    /// Records the end of one URL.
    func finished(_ url: String, state: State, status: Int?, detail: String?) throws {
        try database.withLock { database in
            try database.statement("UPDATE urls SET state = ?, status = ?, detail = ? WHERE url = ?")
                .run([.text(state.rawValue), SQLiteValue(status), SQLiteValue(detail), .text(url)])
        }
    }

    /// What an interrupted crawl left: every URL it knew, and those still to fetch in order.
    func resumePoint() throws -> (known: [String], pending: [CrawlItem]) {
        try database.withLock { database in
            let known = try database.statement("SELECT url FROM urls").rows { $0.string(0) }
            let pending = try database.statement(
                "SELECT url, depth, role, hops, referrer FROM urls WHERE state = 'queued' ORDER BY seq"
            ).rows { row in
                CrawlItem(url: row.string(0), depth: row.int(1), role: CrawlRole(rawValue: row.string(2)) ?? .page,
                          hops: row.int(3), referrer: row.optionalString(4))
            }
            return (known, pending)
        }
    }
}
