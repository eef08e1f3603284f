import Foundation
import MirrorCache
@testable import MirrorCrawl
import Testing

/// The crawl's cache commits its index rows in groups; the journal's records name those entries
/// (a saved file is a link to a stored body), so a batch of records never commits before the
/// entries stored ahead of it: after a kill, no record outlives the entry it names.
@Suite("Journal and cache: commit order")
struct JournalCommitOrderTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("journal-order-\(UUID().uuidString)").path

    @Test func aJournalBatchCommitsTheCachesPendingEntriesFirst() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        var configuration = CacheStore.Configuration()
        configuration.groupCommit = CacheStore.GroupCommit(entries: 100, age: .seconds(3600))
        let store = try CacheStore(directory: root + "/cache", configuration: configuration)
        let journal = try CrawlJournal(folder: root + "/out", fresh: true, cache: store)
        let writer = try store.makeBodyWriter()
        try writer.write(Array("page".utf8))
        let head = CachedResponseHead(status: 200, headers: ["Content-Type": "text/html"], requestTime: 1, responseTime: 2)
        try store.store(url: "http://a.test/", request: [:], head: head, body: writer)
        // Another process's view of the cache: the entry's group has not committed yet.
        #expect(try CacheStore(directory: root + "/cache").statistics().entries == 0)

        try journal.queued([CrawlItem(url: "http://a.test/", depth: 0, role: .page, hops: 0, referrer: nil)])
        try journal.finished("http://a.test/", state: .done, status: 200, detail: "a.test/index.html")
        try journal.flush()
        #expect(try CacheStore(directory: root + "/cache").statistics().entries == 1)
    }
}
