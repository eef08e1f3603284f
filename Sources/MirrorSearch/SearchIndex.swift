import Dispatch
import Foundation
public import MirrorHTML
import MirrorCore
import MirrorSQLite
import MirrorSite
import Synchronization

/// The full-text index of a mirrored folder: SQLite FTS5 in `.mirror/search.sqlite`, a row per
/// saved HTML page (a file several URLs share is one page, under the first of them in byte
/// order) with its title, headings and text (`HTMLText`). Opening it brings it up to date with
/// the folder's manifest: built on first use, and after a re-crawl only the pages whose file
/// changed are read again, and the pages gone are dropped. Results are ranked by bm25, a hit in
/// the title weighing 10 times one in the text, in a heading 5 times.
public final class SearchIndex {
    public static let path = ".mirror/search.sqlite"
    /// Bumped when what a row holds changes: an index of another version is built anew.
    static let version = 1

    /// One page found.
    public struct Result: Sendable, Equatable {
        public let title: String
        /// The page's file, relative to the folder.
        public let path: String
        public let url: String
        /// Text around the hits, each hit between U+0002 and U+0003 (see `snippet(open:close:escape:)`).
        public let markedSnippet: String
        /// bm25: lower is better.
        public let score: Double

        /// The snippet with each hit between `open` and `close`, the rest passed through `escape`.
        public func snippet(open: String, close: String, escape: (String) -> String = { $0 }) -> String {
            var result = ""
            var hit = false
            for part in markedSnippet.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\u{2}" || $0 == "\u{3}" }) {
                result += hit ? open + escape(String(part)) + close : escape(String(part))
                hit.toggle()
            }
            return result
        }
    }

    private let database: SQLiteDatabase

    private init(database: SQLiteDatabase) {
        self.database = database
    }

    /// Opens the index of `folder`, brought up to date with its manifest first.
    public static func open(folder: String) throws(SearchError) -> SearchIndex {
        let manifestPath = folder + "/" + SiteManifest.path
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: manifestPath) else {
            throw SearchError.unusable("\(folder) is not a mirrored folder: it has no \(SiteManifest.path)")
        }
        let stamp = "\(attributes[.size] as? Int ?? 0) \((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
        do {
            let database = try SQLiteDatabase(path: folder + "/" + path)
            let index = SearchIndex(database: database)
            try index.prepareSchema()
            if try database.statement("SELECT value FROM meta WHERE key = 'manifest'").firstRow([]) { $0.string(0) } != stamp {
                let manifest = try SiteManifest.decode(Array(try Data(contentsOf: URL(fileURLWithPath: manifestPath))))
                try index.update(folder: folder, manifest: manifest, stamp: stamp)
            }
            return index
        } catch let error as SearchError {
            throw error
        } catch {
            throw SearchError.unusable("cannot index \(folder): \(error)")
        }
    }

    private func prepareSchema() throws {
        if try database.scalar("PRAGMA user_version") != .integer(Int64(Self.version)) {
            try database.execute("""
                DROP TABLE IF EXISTS pages; DROP TABLE IF EXISTS indexed; DROP TABLE IF EXISTS meta;
                CREATE VIRTUAL TABLE pages USING fts5(title, headings, body, url UNINDEXED, path UNINDEXED,
                    tokenize = 'unicode61 remove_diacritics 2');
                CREATE TABLE indexed (path TEXT PRIMARY KEY, sha256 TEXT NOT NULL, row INTEGER NOT NULL);
                CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                PRAGMA user_version = \(Self.version);
                """)
        }
    }

    /// Indexes the pages whose file changed since they were indexed, and drops those gone.
    private func update(folder: String, manifest: SiteManifest, stamp: String) throws {
        var pages: [String: (url: String, resource: SiteManifest.Resource)] = [:]
        for (url, resource) in manifest.resources where (200..<300).contains(resource.status) && resource.kind == .html {
            if let known = pages[resource.path], known.url.bytesPrecede(url) { continue }
            pages[resource.path] = (url, resource)
        }
        let known = Dictionary(uniqueKeysWithValues: try database.statement("SELECT path, sha256, row FROM indexed").rows { row in
            (row.string(0), (sha256: row.string(1), row: row.int(2)))
        })
        try database.transaction {
            let remove = try database.statement("DELETE FROM pages WHERE rowid = ?")
            let forget = try database.statement("DELETE FROM indexed WHERE path = ?")
            for (path, entry) in known where pages[path]?.resource.fileDigest.sha256 != entry.sha256 {
                try remove.run([.integer(Int64(entry.row))])
                try forget.run([.text(path)])
            }
            let insert = try database.statement("INSERT INTO pages (title, headings, body, url, path) VALUES (?, ?, ?, ?, ?)")
            let note = try database.statement("INSERT INTO indexed (path, sha256, row) VALUES (?, ?, last_insert_rowid())")
            let changed = pages.sorted(by: { $0.key < $1.key }).filter { known[$0.key]?.sha256 != $0.value.resource.fileDigest.sha256 }
            // Pages are read on every core, a slice at a time; SQLite takes them one by one.
            for start in stride(from: 0, to: changed.count, by: 256) {
                let slice = Array(changed[start..<min(start + 256, changed.count)])
                let texts = Mutex([HTMLText?](repeating: nil, count: slice.count))
                DispatchQueue.concurrentPerform(iterations: slice.count) { index in
                    let (path, page) = slice[index]
                    guard let bytes = FileManager.default.contents(atPath: folder + "/" + path) else { return }
                    let text = HTMLText.extract(from: Array(bytes), contentType: page.resource.contentType)
                    texts.withLock { $0[index] = text }
                }
                for ((path, page), text) in zip(slice, texts.withLock { $0 }) {
                    guard let text else { continue }
                    try insert.run([.text(text.title), .text(text.headings.joined(separator: "\n")), .text(text.body), .text(page.url),
                                    .text(path)])
                    try note.run([.text(path), .text(page.resource.fileDigest.sha256)])
                }
            }
            try database.statement("INSERT OR REPLACE INTO meta (key, value) VALUES ('manifest', ?)").run([.text(stamp)])
        }
    }

    /// The pages matching `query`, best first.
    public func search(_ query: SearchQuery, limit: Int = 10, offset: Int = 0) throws(SearchError) -> [Result] {
        do {
            return try database.statement("""
                SELECT title, path, url, snippet(pages, 2, char(2), char(3), '…', 16), bm25(pages, 10.0, 5.0, 1.0, 0.0, 0.0) AS score
                FROM pages WHERE pages MATCH ? ORDER BY score LIMIT ? OFFSET ?
                """).rows([.text(query.expression), .integer(Int64(limit)), .integer(Int64(offset))]) { row in
                Result(title: row.string(0).isEmpty ? row.string(1) : row.string(0), path: row.string(1), url: row.string(2),
                       markedSnippet: row.string(3), score: row.double(4))
            }
        } catch {
            throw SearchError.badQuery("the index could not answer it (\(error))")
        }
    }

    /// How many pages the index holds.
    public func pageCount() throws -> Int {
        try database.statement("SELECT count(*) FROM indexed").firstRow([]) { $0.int(0) } ?? 0
    }
}
