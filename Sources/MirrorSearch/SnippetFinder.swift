import Dispatch
import Foundation
import MirrorHTML
import MirrorLock
import MirrorSQLite

/// Cuts the snippets of a page of results. The index keeps no text, so each result's page is
/// read again, on every core, and its text taken from as little of it as finds the hits: the
/// HTML around the places of the query's rarest word (those with the other words nearest
/// first), then around every word's places, and the whole page only when those hold no hit (a
/// word written as a character reference, say). That text goes into a small FTS5 table in
/// memory, tokenized as the index is, where FTS5's own `snippet()` finds the hits.
final class SnippetFinder: Sendable {
    /// Bytes of HTML read on each side of a word found.
    static let reach = 1_200
    /// Places read per word at most.
    static let places = 4

    /// The table snippets are cut in, one page at a time.
    private let database: Locked<SQLiteDatabase>
    private let page: @Sendable (String) -> [UInt8]?

    /// How much of a page its text is taken from: around the rarest word's places, around every
    /// word's (a page can match with its words apart), or all of it.
    private enum Extent: CaseIterable {
        case rarestWord, everyWord, whole
    }

    /// - Parameter page: a saved file's bytes by its path in the folder (nil when missing).
    init(page: @escaping @Sendable (String) -> [UInt8]?) throws {
        self.page = page
        let database = try SQLiteDatabase(path: ":memory:")
        try database.execute("CREATE VIRTUAL TABLE found USING fts5(body, tokenize = '\(SearchIndexBuilder.tokenizer)')")
        self.database = Locked(database)
    }

    /// Each page's snippet for `query`: text around its hits, each hit between U+0002 and
    /// U+0003; the start of its text when it has no hit there (they are in its title); empty
    /// when it is missing. Pages are read once each, on every core.
    func snippets(_ query: SearchQuery, pages: [(path: String, contentType: String?)]) -> [String] {
        // Longer words first: they are rarer, so their places are likelier to hold the hits.
        let words = query.words.map { Word(bytes: Array($0.text.utf8), isPrefix: $0.isPrefix) }.filter { !$0.bytes.isEmpty }
            .sorted { $0.bytes.count > $1.bytes.count }
        let snippets = Locked([String](repeating: "", count: pages.count))
        let read = page
        DispatchQueue.concurrentPerform(iterations: pages.count) { index in
            guard let bytes = read(pages[index].path) else { return }
            let document = LoweredHTML(bytes)
            var firstWords = ""
            for extent in Extent.allCases {
                guard let text = Self.text(of: document, contentType: pages[index].contentType, words: words, extent: extent) else {
                    continue
                }
                if let snippet = marked(query, in: text) {
                    snippets.withLock { $0[index] = snippet }
                    return
                }
                if firstWords.isEmpty { firstWords = String(text.prefix(160)) }
            }
            snippets.withLock { $0[index] = firstWords }
        }
        return snippets.withLock { $0 }
    }

    /// The text of `document` that `extent` takes; nil when it is no more than a narrower one
    /// took (the page holds none of the words as they are written, or one word only).
    private static func text(of document: LoweredHTML, contentType: String?, words: [Word], extent: Extent) -> String? {
        let html = document.html
        let places: [Range<Int>]
        switch extent {
        case .rarestWord:
            places = Self.places(of: words, in: document)
        case .everyWord:
            guard words.count > 1 else { return nil }
            places = Self.places(of: words, in: document, anchoredAtEveryWord: true)
        case .whole:
            places = []
        }
        if extent != .whole && places.isEmpty { return nil }
        if places.isEmpty { return HTMLText.extract(from: html, contentType: contentType, separatingHeadings: false).body }
        return places.map { HTMLText.extract(from: html[$0], contentType: contentType, separatingHeadings: false).body }
            .joined(separator: " … ")
    }

    /// FTS5's snippet of `text` for `query`; nil when the text has no hit.
    private func marked(_ query: SearchQuery, in text: String) -> String? {
        database.withLock { database in
            try? database.transaction {
                try database.execute("DELETE FROM found")
                try database.statement("INSERT INTO found (rowid, body) VALUES (1, ?)").run([.text(text)])
                return try database.statement("SELECT snippet(found, 0, char(2), char(3), '…', 16) FROM found WHERE found MATCH ?")
                    .firstRow([.text(query.expression)]) { $0.string(0) }
            } ?? nil
        }
    }

    /// A query word as bytes, lower-cased, and whether longer words that start with it match too.
    struct Word {
        let bytes: [UInt8]
        var isPrefix = false
    }

    /// A page's HTML with its ASCII letters lower-cased, made once for every place looked for,
    /// and where its body starts (after `<body`; 0 without one).
    struct LoweredHTML {
        let html: [UInt8]
        let lowered: [UInt8]
        let body: Int

        init(_ html: [UInt8]) {
            self.html = html
            lowered = [UInt8](unsafeUninitializedCapacity: html.count) { buffer, count in
                for index in html.indices { buffer[index] = html[index] &- 0x41 < 26 ? html[index] | 0x20 : html[index] }
                count = html.count
            }
            body = SnippetFinder.search(Array("<body".utf8), in: lowered, from: 0, to: lowered.count).map { $0 + 5 } ?? 0
        }
    }

    /// The ranges of `html` (after `<body`) around the places where the first of `words` is
    /// in the text (a whole word, ASCII case ignored, not inside a tag), those with more of the
    /// other words nearer them first, then in order: at most `places`, merged where they meet,
    /// each starting after a tag's end and ending before a tag's start. A word in an attribute
    /// (`href="#os.walk"`) or inside a longer one (`comprehensions`, `fwalk`) is no place: the
    /// index found the page by whole words of its text.
    /// - Parameter anchoredAtEveryWord: the places of each word in turn, as if it came first.
    static func places(of words: [Word], in document: LoweredHTML, anchoredAtEveryWord: Bool = false) -> [Range<Int>] {
        guard !words.isEmpty else { return [] }
        let (html, lowered, body) = (document.html, document.lowered, document.body)
        let anchors = anchoredAtEveryWord ? Array(words.indices) : [0]
        let chosen = anchors.flatMap { anchor in
            var others = words
            let first = others.remove(at: anchor)
            return places(of: first, near: others, in: lowered, from: body)
        }.sorted()
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

    /// The best `places` places of `first` in `lowered` after `body`, by how near `others` are.
    private static func places(of first: Word, near others: [Word], in lowered: [UInt8], from body: Int) -> [Int] {
        var found: [(at: Int, near: Int)] = []
        var from = body
        while found.count < 256, let hit = find(first, in: lowered, from: from, to: lowered.count) {
            // Each other word within 200 bytes counts, the closer the more (a phrase's words are close).
            let near = others.reduce(0) { score, word in
                var closest: Int?
                var at = max(body, hit - 200)
                while let other = find(word, in: lowered, from: at, to: min(lowered.count, hit + 200)) {
                    closest = min(closest ?? .max, abs(other - hit))
                    at = other + 1
                }
                return score + (closest.map { 201 - $0 } ?? 0)
            }
            found.append((hit, near))
            from = hit + first.bytes.count
        }
        return found.sorted { $0.near != $1.near ? $0.near > $1.near : $0.at < $1.at }.prefix(places).map(\.at)
    }

    /// Where `word` first occurs in the text of `bytes[from..<to]` (lower-cased HTML) as a whole
    /// word (or the start of one, for a prefix), outside tags.
    private static func find(_ word: Word, in bytes: [UInt8], from: Int, to: Int) -> Int? {
        var from = from
        while let at = search(word.bytes, in: bytes, from: from, to: to) {
            let end = at + word.bytes.count
            if !(at > 0 && isWordByte(bytes[at - 1])) && (word.isPrefix || !(end < bytes.count && isWordByte(bytes[end])))
                && !isInsideTag(at, bytes)
            {
                return at
            }
            from = at + 1
        }
        return nil
    }

    /// A byte of a word to FTS5's tokenizer: an ASCII letter or digit, or part of a non-ASCII character.
    private static func isWordByte(_ byte: UInt8) -> Bool {
        byte &- 0x61 < 26 || byte &- 0x30 < 10 || byte >= 0x80
    }

    /// Whether `at` is inside a tag: a `<` comes before it with no `>` between (looking back 4 KiB).
    private static func isInsideTag(_ at: Int, _ bytes: [UInt8]) -> Bool {
        var index = at - 1
        while index >= max(0, at - 4096) {
            if bytes[index] == UInt8(ascii: ">") { return false }
            if bytes[index] == UInt8(ascii: "<") { return true }
            index -= 1
        }
        return false
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
