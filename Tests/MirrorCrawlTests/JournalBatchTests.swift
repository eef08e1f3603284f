import Foundation
import MirrorHTML
import MirrorSQLite
import MirrorSite
import Testing

@testable import MirrorCrawl

/// The journal's group commit: records are made under a lock of their own and committed in
/// batches under the database's, so that making a record never waits for a commit.
@Suite("Crawl journal: batches")
struct JournalBatchTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("journal-batch-\(UUID().uuidString)").path

    /// Each URL is queued, then finished, while every thread also flushes now and then: if a
    /// batch holding a `finished` committed before the one holding its `queued`, the update
    /// would find no row and the URL would stay queued.
    @Test func recordsMadeFromManyThreadsCommitInTheOrderTheyWereMade() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let journal = try CrawlJournal(folder: root, fresh: true)
        let urls = (0..<4000).map { "http://a.test/\($0)" }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for part in 0..<8 {
                group.addTask {
                    for (number, url) in urls[(part * 500)..<((part + 1) * 500)].enumerated() {
                        try journal.urls.queued([CrawlItem(url: url, depth: 1, role: .page, hops: 0, referrer: nil)])
                        try journal.urls.finished(url, .done, status: 200, detail: nil)
                        // Batches taken by many threads at once, besides the ones that fill up.
                        if number % 10 == 0 { try journal.flush() }
                    }
                }
            }
            try await group.waitForAll()
        }
        try journal.flush()
        let database = try SQLiteDatabase(path: root + "/.mirror/journal.sqlite")
        #expect(try database.scalar("SELECT count(*) FROM urls") == .integer(4000))
        #expect(try database.scalar("SELECT count(*) FROM urls WHERE state = 'done'") == .integer(4000))
    }

    /// Pages' texts are large: a batch commits once its records hold 2 MB, well before it holds
    /// 4,096 records or is a second old, so its memory stays bounded.
    @Test func aBatchCommitsOnceItsRecordsHoldTwoMegabytes() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let journal = try CrawlJournal(folder: root, fresh: true)
        let reader = try SQLiteDatabase(path: root + "/.mirror/journal.sqlite")
        let text = HTMLText(body: String(repeating: "t", count: 600_000))
        for number in 0..<3 {
            try journal.pages.record(PageLinks(links: []), references: [], text: text, of: "http://a.test/\(number)", key: "k")
        }
        #expect(try reader.scalar("SELECT count(*) FROM pages") == .integer(0), "three pages' texts, 1.8 MB, wait for more")
        try journal.pages.record(PageLinks(links: []), references: [], text: text, of: "http://a.test/3", key: "k")
        #expect(try reader.scalar("SELECT count(*) FROM pages WHERE text IS NOT NULL") == .integer(4))
    }

    /// A crawl looks a page up before parsing it and never looks up one it parsed itself, so a
    /// journal that held no pages when opened answers without asking SQLite; reopened, it has them.
    @Test func pagesAreLookedUpOnlyWhenTheJournalHeldSomeWhenOpened() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let links = PageLinks(links: [PageLinks.Link(url: "http://a.test/b", kind: .navigation)])
        do {
            let journal = try CrawlJournal(folder: root, fresh: true)
            try journal.pages.record(links, references: [], text: nil, of: "http://a.test/", key: "k")
            try journal.flush()
            #expect(try journal.pages.links(of: "http://a.test/", key: "k") == nil)
        }
        let reopened = try CrawlJournal(folder: root, fresh: true)
        #expect(try reopened.pages.links(of: "http://a.test/", key: "k") == links)
        #expect(try reopened.pages.links(of: "http://a.test/", key: "other") == nil)
        #expect(try reopened.pages.references(of: [("http://a.test/", "k"), ("http://a.test/", "other")]) == [[], nil])
    }

    /// A journal of the version that kept texts in a table of their own keeps them once opened:
    /// each is moved to its page's row (when the page's key is the same), and a page the crawl
    /// recorded without text, or under another key, has none.
    @Test func textsOfAJournalThatKeptThemApartAreKept() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/.mirror", withIntermediateDirectories: true)
        let refs = StoredReferences.encode([])
        let text = StoredText.encode(HTMLText(title: "T", body: "words"))
        do {
            let old = try SQLiteDatabase(path: root + "/.mirror/journal.sqlite")
            try old.execute(
                """
                CREATE TABLE pages (url TEXT PRIMARY KEY, key TEXT NOT NULL, links BLOB NOT NULL, refs BLOB NOT NULL);
                CREATE TABLE texts (url TEXT PRIMARY KEY, key TEXT NOT NULL, text BLOB NOT NULL);
                """)
            for url in ["http://a.test/", "http://a.test/bare", "http://a.test/moved"] {
                try old.statement("INSERT INTO pages VALUES (?, 'k', ?, ?)").run([
                    .text(url), .blob(PageLinks(links: []).encoded), .blob(refs),
                ])
            }
            for (url, key) in [("http://a.test/", "k"), ("http://a.test/moved", "older")] {
                try old.statement("INSERT INTO texts VALUES (?, ?, ?)").run([.text(url), .text(key), .blob(text)])
            }
        }
        let journal = try CrawlJournal(folder: root, fresh: false)
        let texts = try journal.pages.texts(of: [("http://a.test/", "k"), ("http://a.test/bare", "k"), ("http://a.test/moved", "k")])
        #expect(texts.map { $0?.body } == ["words", nil, nil])
        let reader = try SQLiteDatabase(path: root + "/.mirror/journal.sqlite")
        #expect(try reader.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'texts'") == .integer(0))
    }

    /// The site writer holds no resources and reads them back from its ledger: a read sees the
    /// last record of a URL whether its batch has committed or not, and the resources come in
    /// slices in the order of their URLs' bytes, which is the manifest's.
    @Test func resourcesReadBackAreTheLastRecordedCommittedOrNot() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let opened = try CrawlJournal(folder: root, fresh: true)
        let journal = opened.ledger
        let record = ResponseRecord(headers: ["etag": "\"1\""], requestTime: 1, responseTime: 2, varyKey: "")
        func resource(_ path: String) -> SiteManifest.Resource {
            SiteManifest.Resource(
                path: path, status: 200, contentType: "text/html", size: 1, sha256: String(repeating: "ab", count: 32),
                etag: "\"1\"", lastModified: nil, record: record)
        }
        let urls = ["http://a.test/é", "http://a.test/Z", "http://a.test/a", "http://a.test/", "http://a.test/b?q"]
        for url in urls { try journal.saved(url, resource("old")) }
        try journal.flush()
        try journal.saved("http://a.test/a", resource("queued"))
        #expect(try journal.resource(of: "http://a.test/a")?.path == "queued")
        #expect(try journal.resource(of: "http://a.test/Z")?.path == "old")
        #expect(try journal.resource(of: "http://a.test/none") == nil)
        var read: [String] = []
        var after: String?
        while case let slice = try journal.resources(after: after, limit: 2), let last = slice.last {
            #expect(slice.count <= 2)
            read += slice.map(\.url)
            after = last.url
        }
        #expect(read == urls.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        #expect(try journal.resources(after: nil, limit: 10).first { $0.url == "http://a.test/a" }?.resource == resource("queued"))
    }
}
