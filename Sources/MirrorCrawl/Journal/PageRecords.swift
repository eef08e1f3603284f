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

    /// The located references recorded for the HTML page `url` when it had the same `key`.
    func references(of url: String, key: String) throws -> [HTMLReference]? {
        try blob("refs", of: url, key: key).flatMap(StoredReferences.decode)
    }

    /// The text recorded for the HTML page `url` when it had the same `key`.
    public func text(of url: String, key: String) throws -> HTMLText? {
        try blob("text", in: "texts", of: url, key: key).flatMap(StoredText.decode)
    }

    /// Records a page's links and, for an HTML page, its located references and its text.
    func record(_ links: PageLinks, references: [HTMLReference], text: HTMLText?, of url: String, key: String) throws {
        try log.append(
            .page(
                url: url, key: key, links: links.encoded, refs: StoredReferences.encode(references),
                text: text.map(StoredText.encode)))
    }

    /// The column `column` of `url`'s row in `table` (`pages`: "links" or "refs"; `texts`:
    /// "text"), when its key is `key` (committed rows only: a page is looked up before it is
    /// parsed, never right after).
    private func blob(_ column: StaticString, in table: StaticString = "pages", of url: String, key: String) throws -> [UInt8]? {
        try log.lookup { reader in
            try reader.statement("SELECT \(column) FROM \(table) WHERE url = ? AND key = ?")
                .rows([.text(url), .text(key)]) { $0.blob(0) }.first
        }
    }
}
