import MirrorSQLite

/// The tables of `.mirror/journal.sqlite`.
enum JournalSchema {
    /// Sets the journal's tables up (a fresh crawl forgets the URLs of the last); returns when the
    /// crawl it holds started, if it holds one.
    static func prepare(_ database: SQLiteDatabase, fresh: Bool) throws -> Double? {
        _ = try database.scalar("PRAGMA journal_mode=WAL")
        try database.execute("PRAGMA synchronous=NORMAL")
        // Fewer, larger checkpoints, as the cache's index (`CacheIndex`): each fsyncs the file
        // while the thread that commits waits, and a page changed by many batches in between is
        // copied back once.
        try database.execute("PRAGMA wal_autocheckpoint=16000")
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
        // Kept across crawls into the same folder: each page's resolved links, located references
        // (`StoredReferences`) and, for the search index, text (`StoredText`; NULL when the crawl
        // made no index), by body. One table for all three: each table keyed by URL takes its
        // rows at random places, a page of 4 KB written per row and commit once it is large.
        // ("links" was the table of an earlier version; "texts" held the texts apart.)
        try database.execute("DROP TABLE IF EXISTS links")
        try database.execute(
            """
            CREATE TABLE IF NOT EXISTS pages (
                url TEXT PRIMARY KEY, key TEXT NOT NULL, links BLOB NOT NULL, refs BLOB NOT NULL, text BLOB)
            """)
        try joinTexts(database)
        return try database.statement("SELECT value FROM meta WHERE key = 'started'").firstRow { $0.string(0) }.flatMap(Double.init)
    }

    /// Moves the texts of a journal made by an earlier version (a `texts` table, `pages` without
    /// a `text` column) into `pages`, in one transaction.
    private static func joinTexts(_ database: SQLiteDatabase) throws {
        let hasColumn = try database.statement("PRAGMA table_info(pages)").rows { $0.string(1) }.contains("text")
        let hasTable =
            try database.statement("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'texts'")
            .firstRow { _ in true } ?? false
        guard !hasColumn || hasTable else { return }
        try database.transaction {
            if !hasColumn { try database.execute("ALTER TABLE pages ADD COLUMN text BLOB") }
            if hasTable {
                try database.execute(
                    """
                    UPDATE pages SET text = (SELECT texts.text FROM texts WHERE texts.url = pages.url AND texts.key = pages.key)
                        WHERE text IS NULL;
                    DROP TABLE texts;
                    """)
            }
        }
    }
}
