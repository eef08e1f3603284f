import Foundation
import MirrorCore
public import MirrorHTML
import MirrorSQLite
public import MirrorSite
import Synchronization

/// The durable state of a crawl folder, in SQLite at `.mirror/journal.sqlite`: every URL the
/// crawl discovered and what became of it (so `--resume` continues a killed crawl without
/// refetching what is done), each page's links and located references by body, and — as the
/// folder's `SiteLedger` — every saved resource and redirect.
///
/// Records are group-committed: they queue in memory and a batch commits in one transaction
/// once it is large or old enough, and at the end. Records commit in the order they were made,
/// so whatever a `kill -9` leaves is a prefix of them; callers order their records so that
/// any prefix is a consistent state (a file before its resource, a page's links queued before
/// the page is marked done). What a kill loses is redone from the cache by the next crawl.
/// A record may name a cache entry whose group has not committed yet (a saved file is a link
/// to a stored body): the cache's entry log has it, and the next store to open the cache after
/// a kill indexes it (`CacheStore`), so no record outlives the entry it names.
public final class CrawlJournal: SiteLedger {
    private enum Record {
        case queued([CrawlItem])
        case finished(url: String, outcome: CrawlOutcome, status: Int?, detail: String?)
        case page(url: String, key: String, links: [UInt8], refs: [UInt8], text: [UInt8]?)
        /// In `StoredResource`'s form (the column is still named `json`: older rows are JSON).
        case resource(url: String, stored: [UInt8])
        case redirect(url: String, json: [UInt8])
    }

    /// Records made and not committed yet, in order.
    private struct Batch {
        var records: [Record] = []
        var oldest: ContinuousClock.Instant?
    }

    /// A batch commits once it holds this many records…
    private static let batchSize = 512
    /// …or its oldest record is this old.
    private static let batchAge: Duration = .milliseconds(200)

    /// Records are made under this lock only, so making one never waits for a commit…
    private let batch = Mutex(Batch())
    /// …which holds the database's: a batch is taken from the queue and committed under it, so
    /// batches commit one at a time, in the order they were made.
    private let database: Mutex<SQLiteDatabase>
    /// A second connection for looking pages up: with the WAL, a lookup reads the committed
    /// rows while a batch commits, instead of waiting for it.
    private let reader: Mutex<SQLiteDatabase>
    /// Whether the journal held pages when opened. A crawl looks each page up before parsing
    /// it, and never one it parsed itself, so without them every lookup would miss.
    private let hadPages: Bool
    /// Held open with an exclusive lock for the journal's lifetime: one crawl per folder.
    private let lock: Int32
    /// When the crawl this journal continues started (seconds since 1970): what the cache
    /// stored since then is this crawl's own, and is reused rather than fetched again.
    public let crawlStartedAt: Double
    /// Whether a crawl was started in this folder before (so `--resume` has something to continue;
    /// killed before its first commit, it continues from its seeds).
    public let hasCrawl: Bool

    /// Opens the journal of the crawl folder `folder` (created if needed); `fresh` starts a new
    /// crawl (the folder's saved resources are kept), otherwise the crawl it holds continues.
    /// Fails when another process is crawling into the same folder.
    public init(folder: String, fresh: Bool) throws {
        try FileManager.default.createDirectory(atPath: folder + "/.mirror", withIntermediateDirectories: true)
        do { lock = try PosixFile.open(folder + "/.mirror/journal.lock", flags: O_RDWR | O_CREAT) } catch {
            throw CrawlJournalError.cannotLock(folder: folder, reason: error.message)
        }
        guard flock(lock, LOCK_EX | LOCK_NB) == 0 else {
            close(lock)
            throw CrawlJournalError.busy(folder: folder)
        }
        let database: SQLiteDatabase
        let reader: SQLiteDatabase
        let started: Double?
        do {
            database = try SQLiteDatabase(path: folder + "/.mirror/journal.sqlite")
            started = try Self.prepare(database, fresh: fresh)
            reader = try SQLiteDatabase(path: folder + "/.mirror/journal.sqlite")
            try reader.execute("PRAGMA cache_size=-512")  // KB: it reads one row at a time
            hadPages = try database.statement("SELECT 1 FROM pages LIMIT 1").firstRow { _ in true } ?? false
            crawlStartedAt = (fresh ? nil : started) ?? Date().timeIntervalSince1970
            if fresh || started == nil {
                try database.statement("INSERT OR REPLACE INTO meta (key, value) VALUES ('started', ?)")
                    .run([.text(String(crawlStartedAt))])
            }
        } catch {
            close(lock)
            throw error
        }
        hasCrawl = started != nil
        self.database = Mutex(database)
        self.reader = Mutex(reader)
    }

    /// Sets the journal's tables up (a fresh crawl forgets the URLs of the last); returns when the
    /// crawl it holds started, if it holds one.
    private static func prepare(_ database: SQLiteDatabase, fresh: Bool) throws -> Double? {
        _ = try database.scalar("PRAGMA journal_mode=WAL")
        try database.execute("PRAGMA synchronous=NORMAL")
        // Fewer, larger checkpoints (as the cache's index): each fsyncs the file, and a page
        // changed by many batches in between is copied back once.
        try database.execute("PRAGMA wal_autocheckpoint=4000")
        if fresh { try database.execute("DROP TABLE IF EXISTS urls") }
        try database.execute(
            """
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
            );
            CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS resources (url TEXT PRIMARY KEY, json BLOB NOT NULL);
            CREATE TABLE IF NOT EXISTS redirects (url TEXT PRIMARY KEY, json BLOB NOT NULL);
            """)
        // Kept across crawls into the same folder: each page's resolved links and located
        // references (`StoredReferences`), by body. ("links" was the table of the version before.)
        try database.execute("DROP TABLE IF EXISTS links")
        try database.execute(
            """
            CREATE TABLE IF NOT EXISTS pages (
                url TEXT PRIMARY KEY, key TEXT NOT NULL, links BLOB NOT NULL, refs BLOB NOT NULL)
            """)
        // Each HTML page's text for the search index (`StoredText`), by body, as `pages`.
        try database.execute("CREATE TABLE IF NOT EXISTS texts (url TEXT PRIMARY KEY, key TEXT NOT NULL, text BLOB NOT NULL)")
        return try database.statement("SELECT value FROM meta WHERE key = 'started'").firstRow { $0.string(0) }.flatMap(Double.init)
    }

    deinit {
        close(lock)
    }

    // MARK: Pages

    /// The links recorded for `url` when its page had the same `key` (body digest, type, settings).
    func links(of url: String, key: String) throws -> PageLinks? {
        guard hadPages else { return nil }
        return try blob("links", of: url, key: key).flatMap(PageLinks.init(encoded:))
    }

    /// The located references recorded for the HTML page `url` when it had the same `key`.
    func references(of url: String, key: String) throws -> [HTMLReference]? {
        try blob("refs", of: url, key: key).flatMap(StoredReferences.decode)
    }

    /// The text recorded for the HTML page `url` when it had the same `key`.
    public func text(of url: String, key: String) throws -> HTMLText? {
        try blob("text", in: "texts", of: url, key: key).flatMap(StoredText.decode)
    }

    /// Records a page's links and, for an HTML page, its located references and its text.
    func record(_ links: PageLinks, references: [HTMLReference], text: HTMLText?, of url: String, key: String) throws {
        try append(
            .page(
                url: url, key: key, links: links.encoded, refs: StoredReferences.encode(references),
                text: text.map(StoredText.encode)))
    }

    /// The column `column` of `url`'s row in `table` (`pages`: "links" or "refs"; `texts`:
    /// "text"), when its key is `key` (committed rows only: a page is looked up before it is
    /// parsed, never right after).
    private func blob(_ column: StaticString, in table: StaticString = "pages", of url: String, key: String) throws -> [UInt8]? {
        try reader.withLock { reader in
            try reader.statement("SELECT \(column) FROM \(table) WHERE url = ? AND key = ?")
                .rows([.text(url), .text(key)]) { $0.blob(0) }.first
        }
    }

    // MARK: URLs

    /// Records newly discovered URLs as queued.
    func queued(_ items: [CrawlItem]) throws {
        guard !items.isEmpty else { return }
        try append(.queued(items))
    }

    /// Records the end of one URL.
    func finished(_ url: String, _ outcome: CrawlOutcome, status: Int?, detail: String?) throws {
        try append(.finished(url: url, outcome: outcome, status: status, detail: detail))
    }

    /// What an interrupted crawl left: every URL it knew, and those still to fetch in order.
    func resumePoint() throws -> (known: [String], pending: [CrawlItem]) {
        try flush()
        return try database.withLock { database in
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

    // MARK: SiteLedger

    public func resource(of url: String) throws -> SiteManifest.Resource? {
        // Under the database's lock: a batch leaves the queue and commits under it, so a record
        // is either still queued or committed, never in between.
        try database.withLock { database in
            let queued = batch.withLock { batch in
                batch.records.last { record in
                    if case .resource(let recorded, _) = record { recorded == url } else { false }
                }
            }
            if case .resource(_, let stored) = queued { return try Self.resource(url, stored) }
            return try database.statement("SELECT json FROM resources WHERE url = ?").firstRow([.text(url)]) { $0.blob(0) }
                .map { try Self.resource(url, $0) }
        }
    }

    public func resources(after url: String?, limit: Int) throws -> [(url: String, resource: SiteManifest.Resource)] {
        try flush()
        return try database.withLock { database in
            let rows = try database.statement("SELECT url, json FROM resources WHERE url > ? ORDER BY url LIMIT ?")
                .rows([.text(url ?? ""), .integer(Int64(limit))]) { ($0.string(0), $0.blob(1)) }
            return try rows.map { url, stored in (url, try Self.resource(url, stored)) }
        }
    }

    public func redirects() throws -> [String: SiteManifest.Redirect] {
        try flush()
        return try database.withLock { database in
            let decoder = JSONDecoder()
            var redirects: [String: SiteManifest.Redirect] = [:]
            for (url, json) in try database.statement("SELECT url, json FROM redirects").rows([], { ($0.string(0), $0.blob(1)) }) {
                redirects[url] = try decoder.decode(SiteManifest.Redirect.self, from: Data(json))
            }
            return redirects
        }
    }

    /// A resource row's value: `StoredResource`'s form, or JSON in rows of older versions.
    private static func resource(_ url: String, _ stored: [UInt8]) throws -> SiteManifest.Resource {
        if stored.first == UInt8(ascii: "{") { return try JSONDecoder().decode(SiteManifest.Resource.self, from: Data(stored)) }
        guard let resource = StoredResource.decode(stored) else { throw CrawlJournalError.unreadable(url: url) }
        return resource
    }

    public func saved(_ url: String, _ resource: SiteManifest.Resource) throws {
        try append(.resource(url: url, stored: StoredResource.encode(resource)))
    }

    public func redirected(_ url: String, _ redirect: SiteManifest.Redirect) throws {
        try append(.redirect(url: url, json: Array(try JSONEncoder().encode(redirect))))
    }

    /// Commits every pending record.
    public func flush() throws {
        try database.withLock { database in
            let records = batch.withLock { batch in
                defer { batch = Batch() }
                return batch.records
            }
            guard !records.isEmpty else { return }
            do {
                try database.transaction {
                    for record in records { try Self.write(record, to: database) }
                }
            } catch {
                // Kept, ahead of any made since, for the next commit to try again.
                batch.withLock { $0.records.insert(contentsOf: records, at: 0) }
                throw error
            }
        }
    }

    // MARK: Group commit

    private func append(_ record: Record) throws {
        let due = batch.withLock { batch in
            let now = ContinuousClock.now
            batch.records.append(record)
            let oldest = batch.oldest ?? now
            batch.oldest = oldest
            return batch.records.count >= Self.batchSize || now - oldest >= Self.batchAge
        }
        if due { try flush() }
    }

    private static func write(_ record: Record, to database: SQLiteDatabase) throws {
        switch record {
        case .queued(let items):
            let insert = try database.statement(
                "INSERT OR IGNORE INTO urls (url, depth, role, hops, referrer, state) VALUES (?, ?, ?, ?, ?, 'queued')")
            for item in items {
                try insert.run([
                    .text(item.url), .integer(Int64(item.depth)), .text(item.role.rawValue),
                    .integer(Int64(item.hops)), SQLiteValue(item.referrer),
                ])
            }
        case .finished(let url, let outcome, let status, let detail):
            try database.statement("UPDATE urls SET state = ?, status = ?, detail = ? WHERE url = ?")
                .run([.text(outcome.rawValue), SQLiteValue(status), SQLiteValue(detail), .text(url)])
        case .page(let url, let key, let links, let refs, let text):
            try database.statement("INSERT OR REPLACE INTO pages (url, key, links, refs) VALUES (?, ?, ?, ?)")
                .run([.text(url), .text(key), .blob(links), .blob(refs)])
            if let text {
                try database.statement("INSERT OR REPLACE INTO texts (url, key, text) VALUES (?, ?, ?)")
                    .run([.text(url), .text(key), .blob(text)])
            }
        case .resource(let url, let stored):
            try database.statement("INSERT OR REPLACE INTO resources (url, json) VALUES (?, ?)").run([.text(url), .blob(stored)])
        case .redirect(let url, let json):
            try database.statement("INSERT OR REPLACE INTO redirects (url, json) VALUES (?, ?)").run([.text(url), .blob(json)])
        }
    }
}

/// Why a crawl folder cannot be opened.
public enum CrawlJournalError: Error, CustomStringConvertible {
    case busy(folder: String)
    case cannotLock(folder: String, reason: String)
    case unreadable(url: String)

    public var description: String {
        switch self {
        case .busy(let folder): return "another mirror crawl is writing \(folder) (its .mirror/journal.lock is held)"
        case .cannotLock(let folder, let reason): return "cannot lock \(folder)/.mirror/journal.lock: \(reason)"
        case .unreadable(let url): return "the crawl journal's record of \(url) is damaged; crawl again without --resume"
        }
    }
}
