public import MirrorHTML

/// Each page's resolved links and, for an HTML page, its located references and text, by body
/// (`key`: body digest, type, settings): a page crawled again with the same body is not parsed
/// again, and the folder's rewrite and search index read them instead of the page.
public struct PageRecords: Sendable {
    let log: JournalLog
    /// Whether the journal held pages when opened. A crawl looks each page up before parsing
    /// it, and never one it parsed itself, so without them every lookup would miss.
    let hadPages: Bool

    /// The links recorded for `url` when its page had the same `key`.
    func links(of url: String, key: String) throws -> PageLinks? {
        guard hadPages else { return nil }
        return try blob("links", of: url, key: key).flatMap(PageLinks.init(encoded:))
    }

    /// The located references recorded for each HTML page of `pages` when it had the same key
    /// (`rows`).
    func references(of pages: [(url: String, key: String)]) throws -> [[HTMLReference]?] {
        try rows("refs", of: pages).map { $0.flatMap(StoredReferences.decode) }
    }

    /// The text recorded for each HTML page of `pages` when it had the same key (`rows`).
    public func texts(of pages: [(url: String, key: String)]) throws -> [HTMLText?] {
        try rows("text", of: pages).map { $0.flatMap(StoredText.decode) }
    }

    /// Records a page's links and, for an HTML page, its located references and its text.
    func record(_ links: PageLinks, references: [HTMLReference], text: HTMLText?, of url: String, key: String) throws {
        try log.append(
            .page(
                url: url, key: key, links: links.encoded, refs: StoredReferences.encode(references),
                text: text.map(StoredText.encode)))
    }

    /// The column `column` of `url`'s row in `pages` when its key is `key` (committed rows only:
    /// a page is looked up before it is parsed, never right after).
    private func blob(_ column: StaticString, of url: String, key: String) throws -> [UInt8]? {
        try log.lookup { reader in
            try reader.statement("SELECT \(column) FROM pages WHERE url = ? AND key = ?")
                .rows([.text(url), .text(key)]) { $0.blob(0) }.first
        }
    }

    /// The column `column` of each page's row when it has the same key (nil where it is NULL), in
    /// one read of the rows from the first URL to the last in byte order: the finish asks a run
    /// of pages at a time, in that order, so the read spans little more than the run.
    private func rows(_ column: StaticString, of pages: [(url: String, key: String)]) throws -> [[UInt8]?] {
        guard let low = pages.min(by: { $0.url.bytesPrecede($1.url) })?.url, let high = pages.max(by: { $0.url.bytesPrecede($1.url) })?.url
        else { return [] }
        // By bytes, as the table compares: `==` would take two spellings of a URL for one.
        let urls = pages.map { Array($0.url.utf8) }
        let wanted = Set(urls)
        let rows = try log.lookup { reader in
            try reader.statement("SELECT url, key, \(column) FROM pages WHERE url BETWEEN ? AND ?")
                .rows([.text(low), .text(high)]) { row -> (url: [UInt8], key: [UInt8], value: [UInt8]?)? in
                    let url = row.blob(0)
                    return wanted.contains(url) ? (url, row.blob(1), row.isNull(2) ? nil : row.blob(2)) : nil
                }
        }
        let found = Dictionary(rows.compactMap { $0.map { ($0.url, $0) } }, uniquingKeysWith: { first, _ in first })
        return zip(urls, pages).map { url, page in
            found[url].flatMap { $0.key == Array(page.key.utf8) ? $0.value : nil }
        }
    }
}
