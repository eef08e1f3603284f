import MirrorSQLite

/// One change to a crawl's journal, as it queues for the next group commit (`JournalLog`) and
/// how it is written.
enum JournalRecord {
    case queued([CrawlItem])
    case finished(url: String, outcome: CrawlOutcome, status: Int?, detail: String?)
    case page(url: String, key: String, links: [UInt8], refs: [UInt8], text: [UInt8]?)
    /// In `StoredResource`'s form (the column is still named `json`: older rows are JSON).
    case resource(url: String, stored: [UInt8])
    case redirect(url: String, json: [UInt8])

    /// About the bytes the record holds in memory while it waits for its commit.
    var size: Int {
        switch self {
        case .queued(let items): items.reduce(0) { $0 + $1.url.utf8.count + ($1.referrer?.utf8.count ?? 0) + 48 }
        case .finished(let url, _, _, let detail): url.utf8.count + (detail?.utf8.count ?? 0) + 48
        case .page(let url, let key, let links, let refs, let text):
            url.utf8.count + key.utf8.count + links.count + refs.count + (text?.count ?? 0)
        case .resource(let url, let stored): url.utf8.count + stored.count
        case .redirect(let url, let json): url.utf8.count + json.count
        }
    }

    func write(to database: SQLiteDatabase) throws {
        switch self {
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
            try database.statement("INSERT OR REPLACE INTO pages (url, key, links, refs, text) VALUES (?, ?, ?, ?, ?)")
                .run([.text(url), .text(key), .blob(links), .blob(refs), text.map(SQLiteValue.blob) ?? .null])
        case .resource(let url, let stored):
            try database.statement("INSERT OR REPLACE INTO resources (url, json) VALUES (?, ?)").run([.text(url), .blob(stored)])
        case .redirect(let url, let json):
            try database.statement("INSERT OR REPLACE INTO redirects (url, json) VALUES (?, ?)").run([.text(url), .blob(json)])
        }
    }
}
