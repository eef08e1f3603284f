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
}
