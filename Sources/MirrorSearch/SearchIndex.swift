import Foundation
import MirrorCore
import MirrorSQLite
public import MirrorSite

/// The full-text index of a mirrored folder, `.mirror/search.sqlite` (built by
/// `SearchIndexBuilder`): SQLite FTS5 over each saved HTML page's title, headings, names and
/// text, ranked by bm25 (a hit in the title weighs 10 times one in the text, in a heading or a
/// name 5 times).
///
/// The index keeps no text, only the words' places (FTS5 "contentless"), so it stays a
/// fraction of the pages' size; a result's snippet is cut from its page, read again
/// (`SnippetFinder`). It opens from a folder, brought up to date with the folder's manifest
/// first, or from a bundle's copy held in memory.
public final class SearchIndex {
    public static let path = SiteManifest.searchIndexPath

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
    private let snippets: SnippetFinder

    /// - Parameter page: a saved file's bytes by its path in the folder (nil when missing).
    init(database: SQLiteDatabase, page: @escaping @Sendable (String) -> [UInt8]?) throws(SearchError) {
        self.database = database
        do {
            guard try database.scalar("PRAGMA user_version") == .integer(Int64(SearchIndexBuilder.version)) else {
                throw SearchError.unusable("\(database.path) is not a search index of this version of mirror")
            }
            snippets = try SnippetFinder(page: page)
        } catch let error as SearchError {
            throw error
        } catch {
            throw SearchError.unusable("cannot read the search index \(database.path): \(database.readFailure ?? error)")
        }
    }

    /// Opens the index of `folder`, built or rebuilt first when it is missing or does not match
    /// the folder's manifest (a check skipped while neither file changed since the last one).
    /// - Parameter manifest: the folder's manifest when the caller has read it already.
    public static func open(folder: String, manifest known: SiteManifest? = nil) throws(SearchError) -> SearchIndex {
        let stamp = SearchIndexStamp(folder: folder)
        if stamp.manifest == nil {
            throw SearchError.unusable("\(folder) is not a mirrored folder: it has no \(SiteManifest.path)")
        }
        if !stamp.isRecorded {
            let manifest: SiteManifest
            do {
                manifest =
                    try known ?? SiteManifest.decode(Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + SiteManifest.path))))
            } catch {
                throw SearchError.unusable("cannot read the manifest of \(folder): \(error)")
            }
            _ = try SearchIndexBuilder.update(
                folder: folder, pages: manifest.resources.sorted { $0.key.bytesPrecede($1.key) }.map { ($0.key, $0.value) })
            SearchIndexStamp(folder: folder).record()
        }
        do {
            return try SearchIndex(
                database: try SQLiteDatabase(path: folder + "/" + path, readOnly: true),
                page: SearchIndexBuilder.files(of: folder))
        } catch let error as SearchError {
            throw error
        } catch {
            throw SearchError.unusable("cannot open the search index of \(folder): \(error)")
        }
    }

    /// Opens an index file someone else made (a bundle's) that `connect` opens read-only.
    /// - Parameter page: a saved file's bytes by its path in the folder (nil when missing).
    static func open(
        name: String, page: @escaping @Sendable (String) -> [UInt8]?,
        connect: () throws(SQLiteError) -> SQLiteDatabase
    ) throws(SearchError) -> SearchIndex {
        do {
            let database = try connect()
            // The bytes come from a file someone else made: no functions run from its schema.
            try database.execute("PRAGMA trusted_schema = OFF; PRAGMA cell_size_check = ON")
            return try SearchIndex(database: database, page: page)
        } catch let error as SearchError {
            throw error
        } catch {
            throw SearchError.unusable("cannot read the search index \(name): \(error)")
        }
    }

    /// An index made now, held in memory, from `pages` (a manifest's resources) whose files
    /// `page` gives by path: for a bundle packed without one.
    static func make(
        pages: [(url: String, resource: SiteManifest.Resource)], name: String,
        page: @escaping @Sendable (String) -> [UInt8]?
    ) throws(SearchError) -> SearchIndex {
        do {
            let database = try SQLiteDatabase(path: ":memory:")
            try SearchIndexBuilder.build(into: database, pages: pages.sorted { $0.url.bytesPrecede($1.url) }, read: page)
            return try SearchIndex(database: database, page: page)
        } catch let error as SearchError {
            throw error
        } catch {
            throw SearchError.unusable("cannot index \(name): \(error)")
        }
    }

    /// The pages matching `query`, best first.
    public func search(_ query: SearchQuery, limit: Int = 10, offset: Int = 0) throws(SearchError) -> [Result] {
        let found: [(title: String, path: String, url: String, type: String, score: Double)]
        do {
            found = try database.statement(
                """
                SELECT pages.title, pages.path, pages.url, pages.type, bm25(words, 10.0, 5.0, 5.0, 1.0) AS score
                FROM words JOIN pages ON pages.row = words.rowid
                WHERE words MATCH ? ORDER BY score LIMIT ? OFFSET ?
                """
            ).rows([.text(query.expression), .integer(Int64(limit)), .integer(Int64(offset))]) { row in
                (row.string(0), row.string(1), row.string(2), row.string(3), row.double(4))
            }
        } catch {
            // A page of an index read in place that could not be read is a damaged bundle, not a bad query.
            if let failure = database.readFailure { throw SearchError.unusable("\(database.path): \(failure)") }
            throw SearchError.badQuery("the index could not answer it (\(error))")
        }
        let snippets = self.snippets.snippets(query, pages: found.map { ($0.path, $0.type.isEmpty ? nil : $0.type) })
        return zip(found, snippets).map { found, snippet in
            Result(
                title: found.title.isEmpty ? found.path : found.title, path: found.path, url: found.url,
                markedSnippet: snippet, score: found.score)
        }
    }

    /// How many pages the index holds.
    public func pageCount() throws -> Int {
        try database.statement("SELECT count(*) FROM pages").firstRow([]) { $0.int(0) } ?? 0
    }
}
