import MirrorSQLite

/// The SQLite index of the cache: one row per entry, one per body. Not thread-safe;
/// `CacheStore` serializes access (hence `@unchecked Sendable`: it only moves under that lock).
/// WAL mode lets other processes read and write the same file.
final class CacheIndex: @unchecked Sendable {
    static let formatVersion = 1
    let database: SQLiteDatabase

    init(path: String) throws {
        database = try SQLiteDatabase(path: path)
        // WAL: readers never block the writer. synchronous=NORMAL: a commit is atomic and
        // survives kill -9; after a power loss the last commits may roll back (never half-applied).
        _ = try database.scalar("PRAGMA journal_mode=WAL")
        try database.execute("PRAGMA synchronous=NORMAL")
        // No memory-mapped reads: every page of the index a crawl touched stayed in its resident
        // memory (70 MB of index at 100,000 URLs). SQLite's own cache of 4 MB bounds it; the
        // rest of the index is read from the kernel's page cache. Crawls of 20,000 pages took the
        // same time with the mapping or without (14-19 s), and of 100,000 with a cache of 16 MB
        // or 4 MB (the peak 15-23 MB lower, alternating).
        try database.execute("PRAGMA mmap_size=0; PRAGMA cache_size=-4000; PRAGMA temp_store=MEMORY")
        // Fewer, larger checkpoints (16,000 pages, a WAL of up to 64 MB): each one fsyncs the WAL
        // and the database file, and the thread that commits waits for it; a page changed by many
        // groups in between is copied back once.
        try database.execute("PRAGMA wal_autocheckpoint=16000")
        let version = try database.scalar("PRAGMA user_version")
        if case .integer(let found) = version, found > Self.formatVersion {
            throw CacheError.incompatibleVersion(found: Int(found), supported: Self.formatVersion)
        }
        try database.execute(
            """
            \(Self.entriesTable("IF NOT EXISTS entries"))
            CREATE INDEX IF NOT EXISTS entries_by_url ON entries(url);
            -- Every b-tree costs a page per commit: bodies count their users instead of an index on
            -- entries(digest), and eviction sorts by last_access when it runs instead of indexing it.
            CREATE TABLE IF NOT EXISTS bodies (
                digest TEXT PRIMARY KEY, size INTEGER NOT NULL, refs INTEGER NOT NULL
            ) WITHOUT ROWID;
            -- Running totals, kept in the same transactions as the rows, so opening a big cache scans nothing.
            CREATE TABLE IF NOT EXISTS totals (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;

            PRAGMA user_version = \(Self.formatVersion);
            """)
        // An index that cannot be moved now (a full disk, another process writing for longer than
        // the wait for its lock) keeps the old layout, which answers the same statements, until
        // it is next opened.
        try? moveEntriesOutOfIDOrder()
        try addMissing(.bodyBytes, computedBy: "coalesce(sum(size), 0) FROM bodies")
        try addMissing(.logRecords, computedBy: "count(*) FROM entries")
    }

    /// The table of entries, named `name`: rows in the order they were stored (SQLite's rowid),
    /// found by id through the index SQLite makes for the primary key. Stored in the order of
    /// their ids (`WITHOUT ROWID`, the layout of earlier versions), whole rows of some 500 bytes
    /// each went to a random page of the table, and once the table was large every commit wrote
    /// a page of 4 KB per entry; now only the index's short rows go to random pages. Both
    /// layouts answer the same statements.
    private static func entriesTable(_ name: String) -> String {
        """
        CREATE TABLE \(name) (
            id TEXT PRIMARY KEY,
            method TEXT NOT NULL,
            url TEXT NOT NULL,
            vary_key TEXT NOT NULL,
            status INTEGER NOT NULL,
            headers TEXT NOT NULL,
            request_time REAL NOT NULL,
            response_time REAL NOT NULL,
            digest TEXT NOT NULL,
            size INTEGER NOT NULL,
            last_access REAL NOT NULL
        );
        """
    }

    /// Copies the entries of an index in the layout of earlier versions (`WITHOUT ROWID`) into
    /// `entriesTable`'s, in one transaction: a kill leaves the old table whole, and another
    /// process opening the index at the same time waits for it, then finds the new one. About a
    /// second per 100,000 entries, once; versions that made the old layout read the new one.
    private func moveEntriesOutOfIDOrder() throws {
        func isInIDOrder() throws -> Bool {
            let definition = try database.statement("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'entries'")
                .firstRow { $0.string(0) }
            return definition?.uppercased().contains("WITHOUT ROWID") ?? false
        }
        guard try isInIDOrder() else { return }
        try database.transaction {
            guard try isInIDOrder() else { return }
            try database.execute(
                """
                \(Self.entriesTable("entries_stored_in_order"))
                INSERT INTO entries_stored_in_order (\(Self.columns)) SELECT \(Self.columns) FROM entries;
                DROP TABLE entries;
                ALTER TABLE entries_stored_in_order RENAME TO entries;
                CREATE INDEX entries_by_url ON entries(url);
                """)
        }
    }

    /// Adds the row of `total`, computed by `query`, to an index an older version made without it.
    private func addMissing(_ total: Total, computedBy query: String) throws {
        guard try storedTotal(total) == nil else { return }
        try database.execute("INSERT INTO totals SELECT '\(total.rawValue)', \(query)")
    }

    /// Running totals of the `totals` table.
    enum Total: String {
        /// The bytes of all bodies.
        case bodyBytes = "body_bytes"
        /// About how many entry records the entry log holds (those of committed groups), against
        /// which `counts().entries` says how much of it is outdated.
        case logRecords = "log_records"
    }

    private static let columns =
        "id, method, url, vary_key, status, headers, request_time, response_time, digest, size, last_access"

    private static func entry(_ row: SQLiteRow) -> CacheEntry {
        CacheEntry(
            id: row.string(0), method: row.string(1), url: row.string(2), varyKey: row.string(3),
            status: row.int(4), headers: HeaderCoding.decode(row.string(5)), requestTime: row.double(6),
            responseTime: row.double(7), digest: row.string(8), size: row.int(9), lastAccess: row.double(10))
    }

    /// Changes whenever another connection (another process) commits to the database; this
    /// connection's own commits leave it as it was.
    func dataVersion() throws -> Int64 {
        try database.statement("PRAGMA data_version").firstRow([]) { $0.int64(0) } ?? 0
    }

    func entries(url: String) throws -> [CacheEntry] {
        try database.statement("SELECT \(Self.columns) FROM entries WHERE url = ?").rows([.text(url)], Self.entry)
    }

    /// Every entry, in URL order.
    func allEntries() throws -> [CacheEntry] {
        try database.statement("SELECT \(Self.columns) FROM entries ORDER BY url, id").rows([], Self.entry)
    }

    /// At most `limit` entries after the entry (`url`, `id`) in URL order (from the first when nil).
    func entries(after key: (url: String, id: String)?, limit: Int) throws -> [CacheEntry] {
        guard let key else {
            return try database.statement("SELECT \(Self.columns) FROM entries ORDER BY url, id LIMIT ?")
                .rows([.integer(Int64(limit))], Self.entry)
        }
        return try database.statement("SELECT \(Self.columns) FROM entries WHERE (url, id) > (?, ?) ORDER BY url, id LIMIT ?")
            .rows([.text(key.url), .text(key.id), .integer(Int64(limit))], Self.entry)
    }

    /// The digests of bodies that more than one entry uses.
    func sharedDigests() throws -> [String] {
        try database.statement("SELECT digest FROM bodies WHERE refs > 1").rows { $0.string(0) }
    }

    /// Inserts or replaces an entry and counts it as a user of its body. Returns the bodies
    /// no entry uses any more (the body the entry used before, if it changed and was its last user).
    func upsert(_ entry: CacheEntry) throws -> [(digest: String, size: Int)] {
        let previous = try digest(ofEntry: entry.id)
        try database.statement("INSERT OR REPLACE INTO entries (\(Self.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
            .run([
                .text(entry.id), .text(entry.method), .text(entry.url), .text(entry.varyKey),
                .integer(Int64(entry.status)), .text(HeaderCoding.encode(entry.headers)),
                .real(entry.requestTime), .real(entry.responseTime), .text(entry.digest),
                .integer(Int64(entry.size)), .real(entry.lastAccess),
            ])
        guard previous != entry.digest else { return [] }
        try database.statement(
            """
            INSERT INTO bodies (digest, size, refs) VALUES (?, ?, 1)
            ON CONFLICT(digest) DO UPDATE SET refs = refs + 1
            """
        ).run([.text(entry.digest), .integer(Int64(entry.size))])
        if try refs(entry.digest) == 1 { try add(entry.size, to: .bodyBytes) }  // a new body
        return try previous.map { try release($0) } ?? []
    }

    /// The body digest of the entry `id`, if it has a row.
    func digest(ofEntry id: String) throws -> String? {
        try database.statement("SELECT digest FROM entries WHERE id = ?").firstRow([.text(id)]) { $0.string(0) }
    }

    func touch(id: String, at time: Double) throws {
        try database.statement("UPDATE entries SET last_access = max(last_access, ?) WHERE id = ?")
            .run([.real(time), .text(id)])
    }

    /// Deletes one entry; returns the bodies no entry uses any more, with their sizes
    /// (their rows are gone too; the caller deletes the files after the commit).
    func deleteEntry(id: String) throws -> [(digest: String, size: Int)] {
        let digest = try database.statement("SELECT digest FROM entries WHERE id = ?").firstRow([.text(id)]) { $0.string(0) }
        try database.statement("DELETE FROM entries WHERE id = ?").run([.text(id)])
        return try digest.map { try release($0) } ?? []
    }

    /// The entries that use a body.
    func entryIDs(digest: String) throws -> [String] {
        try database.statement("SELECT id FROM entries WHERE digest = ?").rows([.text(digest)]) { $0.string(0) }
    }

    /// Upserts `entries` in order; returns the bodies none of them, nor any other entry, uses
    /// at the end (a body one entry gave up may be taken again by a later one of the same group).
    func upsert(_ entries: [CacheEntry]) throws -> [String] {
        try apply(entries.map { .entry($0) })
    }

    /// Applies entry-log records in order: entries upserted, removed ones deleted. Returns the
    /// bodies no entry uses at the end.
    func apply(_ records: [LogRecord]) throws -> [String] {
        var released: [String] = []
        for record in records {
            switch record {
            case .entry(let entry): released += try upsert(entry).map(\.digest)
            case .removed(let id, _): released += try deleteEntry(id: id).map(\.digest)
            case .committed: continue
            }
        }
        return try Set(released).filter { try refs($0) == 0 }
    }

    private func refs(_ digest: String) throws -> Int {
        try database.statement("SELECT refs FROM bodies WHERE digest = ?").firstRow([.text(digest)]) { $0.int(0) } ?? 0
    }

    /// One user fewer for a body; at zero the row goes and the body is returned for deletion.
    private func release(_ digest: String) throws -> [(digest: String, size: Int)] {
        try database.statement("UPDATE bodies SET refs = refs - 1 WHERE digest = ?").run([.text(digest)])
        guard
            let (refs, size) = try database.statement("SELECT refs, size FROM bodies WHERE digest = ?")
                .firstRow([.text(digest)], { ($0.int(0), $0.int(1)) }), refs <= 0
        else { return [] }
        try database.statement("DELETE FROM bodies WHERE digest = ?").run([.text(digest)])
        try add(-size, to: .bodyBytes)
        return [(digest, size)]
    }

    /// The least recently used entries, oldest first.
    func leastRecentlyUsed(limit: Int) throws -> [String] {
        try database.statement("SELECT id FROM entries ORDER BY last_access, id LIMIT ?")
            .rows([.integer(Int64(limit))]) { $0.string(0) }
    }

    func totalBodyBytes() throws -> Int { try total(.bodyBytes) }

    func total(_ total: Total) throws -> Int { try storedTotal(total) ?? 0 }

    /// The value of `total`; nil when the index has no row for it.
    private func storedTotal(_ total: Total) throws -> Int? {
        try database.statement("SELECT value FROM totals WHERE name = ?").firstRow([.text(total.rawValue)]) { $0.int(0) }
    }

    func add(_ delta: Int, to total: Total) throws {
        try database.statement("UPDATE totals SET value = value + ? WHERE name = ?")
            .run([.integer(Int64(delta)), .text(total.rawValue)])
    }

    func set(_ total: Total, to value: Int) throws {
        try database.statement("UPDATE totals SET value = ? WHERE name = ?").run([.integer(Int64(value)), .text(total.rawValue)])
    }

    func counts() throws -> (entries: Int, bodies: Int) {
        let entries = try database.statement("SELECT count(*) FROM entries").firstRow { $0.int(0) } ?? 0
        let bodies = try database.statement("SELECT count(*) FROM bodies").firstRow { $0.int(0) } ?? 0
        return (entries, bodies)
    }

    func allDigests() throws -> [(digest: String, size: Int)] {
        try database.statement("SELECT digest, size FROM bodies ORDER BY digest").rows { ($0.string(0), $0.int(1)) }
    }

    func deleteAll() throws {
        try database.execute("DELETE FROM entries; DELETE FROM bodies; UPDATE totals SET value = 0;")
    }

    func checkpoint() throws {
        try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    func integrityProblems() throws -> [String] {
        try database.statement("PRAGMA quick_check").rows { $0.string(0) }.filter { $0 != "ok" }
    }
}
