import Dispatch
import Foundation
import MirrorHTML
import MirrorSQLite
import Synchronization

/// Cuts the snippets of a page of results. The index keeps no text, so each result's page is
/// read again, on every core: only the HTML around the first places it holds one of the query's
/// words (the whole page when it holds none as written, an accented word written as a character
/// reference, say). That text goes into a small FTS5 table in memory, tokenized as the index
/// is, where FTS5's own `snippet()` finds the hits.
final class SnippetFinder {
    /// Bytes of HTML read on each side of a word found.
    static let reach = 1_200
    /// Places read per page at most.
    static let places = 4

    private let database: SQLiteDatabase
    private let page: @Sendable (String) -> [UInt8]?

    /// - Parameter page: a saved file's bytes by its path in the folder (nil when missing).
    init(page: @escaping @Sendable (String) -> [UInt8]?) throws {
        self.page = page
        database = try SQLiteDatabase(path: ":memory:")
        try database.execute("CREATE VIRTUAL TABLE found USING fts5(body, tokenize = '\(SearchIndexBuilder.tokenizer)')")
    }

    /// Each page's snippet for `query`: text around its hits, each hit between U+0002 and
    /// U+0003; the start of its text when it has no hit there (they are in its title); empty
    /// when it is missing.
    func snippets(_ query: SearchQuery, pages: [(path: String, contentType: String?)]) -> [String] {
        // Longer words first: they are rarer, so their places are likelier to hold the hits.
        let words = query.words.map { Array($0.utf8) }.filter { !$0.isEmpty }.sorted { $0.count > $1.count }
        var snippets = [String?](repeating: nil, count: pages.count)
        var firstWords = [String](repeating: "", count: pages.count)
        // First the places where the words are; for a page where those hold no hit, the whole page.
        for whole in [false, true] {
            let wanted = snippets.indices.filter { snippets[$0] == nil }
            let texts = self.texts(of: wanted.map { pages[$0] }, words: whole ? [] : words)
            for (index, text) in zip(wanted, texts) where !text.isEmpty || whole {
                let snippet = marked(query, in: text)
                if snippet != nil || whole { snippets[index] = snippet }
                if firstWords[index].isEmpty { firstWords[index] = String(text.prefix(160)) }
            }
        }
        return snippets.indices.map { snippets[$0] ?? firstWords[$0] }
    }

    /// The text of each page: around the places it holds one of `words`, or all of it when
    /// `words` is empty or it holds none of them; empty when the page is missing.
    private func texts(of pages: [(path: String, contentType: String?)], words: [[UInt8]]) -> [String] {
        let texts = Mutex([String](repeating: "", count: pages.count))
        let read = page
        DispatchQueue.concurrentPerform(iterations: pages.count) { index in
            guard let bytes = read(pages[index].path) else { return }
            let type = pages[index].contentType
            let parts = Self.places(of: words, in: bytes).map { range in
                HTMLText.extract(from: bytes[range], contentType: type, separatingHeadings: false).body
            }
            let text = parts.isEmpty ? HTMLText.extract(from: bytes, contentType: type, separatingHeadings: false).body
                : parts.joined(separator: " … ")
            texts.withLock { $0[index] = text }
        }
        return texts.withLock { $0 }
    }

    /// FTS5's snippet of `text` for `query`; nil when the text has no hit.
    private func marked(_ query: SearchQuery, in text: String) -> String? {
        try? database.transaction {
            try database.execute("DELETE FROM found")
            try database.statement("INSERT INTO found (rowid, body) VALUES (1, ?)").run([.text(text)])
            return try database.statement("SELECT snippet(found, 0, char(2), char(3), '…', 16) FROM found WHERE found MATCH ?")
                .firstRow([.text(query.expression)]) { $0.string(0) }
        } ?? nil
    }

    /// The ranges of `html` (after `<body`) around the places where the first of `words` is
    /// (ASCII case ignored), those with more of the other words near them first, then in order:
    /// at most `places`, merged where they meet, each starting after a tag's end and ending
    /// before a tag's start.
    static func places(of words: [[UInt8]], in html: [UInt8]) -> [Range<Int>] {
        guard let first = words.first else { return [] }
        let lowered = [UInt8](unsafeUninitializedCapacity: html.count) { buffer, count in
            for index in html.indices { buffer[index] = html[index] &- 0x41 < 26 ? html[index] | 0x20 : html[index] }
            count = html.count
        }
        let body = search(Array("<body".utf8), in: lowered, from: 0, to: lowered.count).map { $0 + 5 } ?? 0
        var found: [(at: Int, near: Int)] = []
        var from = body
        while found.count < 256, let hit = search(first, in: lowered, from: from, to: lowered.count) {
            let near = words.dropFirst().filter { search($0, in: lowered, from: max(0, hit - 200), to: min(lowered.count, hit + 200)) != nil }
            found.append((hit, near.count))
            from = hit + first.count
        }
        let chosen = found.sorted { $0.near != $1.near ? $0.near > $1.near : $0.at < $1.at }.prefix(places).map(\.at).sorted()
        var ranges: [Range<Int>] = []
        for start in chosen {
            let range = max(body, start - reach)..<min(html.count, start + reach)
            if let last = ranges.last, last.upperBound >= range.lowerBound {
                ranges[ranges.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                ranges.append(range)
            }
        }
        return ranges.map { range in
            let start = html[range].firstIndex(of: UInt8(ascii: ">")).map { $0 + 1 } ?? range.lowerBound
            let end = html[start..<range.upperBound].lastIndex(of: UInt8(ascii: "<")) ?? range.upperBound
            return start..<max(start, end)
        }
    }

    /// Where `word` first occurs in `bytes[from..<to]` (memchr for its first byte, then memcmp
    /// for the rest).
    private static func search(_ word: [UInt8], in bytes: [UInt8], from: Int, to: Int) -> Int? {
        guard let first = word.first, from >= 0, to <= bytes.count else { return nil }
        return bytes.withUnsafeBytes { haystack -> Int? in
            word.withUnsafeBytes { needle -> Int? in
                var offset = from
                while offset + needle.count <= to {
                    guard let found = memchr(haystack.baseAddress! + offset, Int32(first), to - needle.count + 1 - offset) else {
                        return nil
                    }
                    let at = haystack.baseAddress!.distance(to: UnsafeRawPointer(found))
                    if memcmp(found, needle.baseAddress!, needle.count) == 0 { return at }
                    offset = at + 1
                }
                return nil
            }
        }
    }
}
