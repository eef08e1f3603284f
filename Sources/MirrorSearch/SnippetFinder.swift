import Dispatch
import MirrorHTML
import MirrorSQLite
import Synchronization

/// Cuts the snippets of a page of results. The index keeps no text, so each result's page is
/// read again (on every core) and its text put in a small FTS5 table in memory, tokenized as
/// the index is, where FTS5's own `snippet()` finds the hits.
final class SnippetFinder {
    private let database: SQLiteDatabase
    private let page: @Sendable (String) -> [UInt8]?

    /// - Parameter page: a saved file's bytes by its path in the folder (nil when missing).
    init(page: @escaping @Sendable (String) -> [UInt8]?) throws {
        self.page = page
        database = try SQLiteDatabase(path: ":memory:")
        try database.execute("CREATE VIRTUAL TABLE found USING fts5(title, headings, body, tokenize = '\(SearchIndexBuilder.tokenizer)')")
    }

    /// Each page's snippet for `query`: text around its hits, each hit between U+0002 and
    /// U+0003; the start of its text when the hits are in its title; empty when it is missing.
    func snippets(_ query: SearchQuery, pages: [(path: String, contentType: String?)]) -> [String] {
        let texts = Mutex([HTMLText?](repeating: nil, count: pages.count))
        let read = page
        DispatchQueue.concurrentPerform(iterations: pages.count) { index in
            guard let bytes = read(pages[index].path) else { return }
            let text = HTMLText.extract(from: bytes, contentType: pages[index].contentType)
            texts.withLock { $0[index] = text }
        }
        var snippets = [String](repeating: "", count: pages.count)
        do {
            try database.transaction {
                try database.execute("DELETE FROM found")
                let insert = try database.statement("INSERT INTO found (rowid, title, headings, body) VALUES (?, ?, ?, ?)")
                for (index, text) in texts.withLock({ $0 }).enumerated() {
                    guard let text else { continue }
                    try insert.run([.integer(Int64(index)), .text(text.title), .text(text.headings.joined(separator: "\n")), .text(text.body)])
                }
            }
            for (index, snippet) in try database.statement("""
                SELECT rowid, snippet(found, 2, char(2), char(3), '…', 16) FROM found WHERE found MATCH ?
                """).rows([.text(query.expression)], { ($0.int(0), $0.string(1)) }) where snippets.indices.contains(index) {
                snippets[index] = snippet
            }
        } catch {
            // The query ran on the index already: a page whose snippet cannot be cut shows none.
        }
        return snippets
    }
}
