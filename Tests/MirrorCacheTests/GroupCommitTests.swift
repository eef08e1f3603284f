import Foundation
import MirrorLock
import NIOHTTP1
import Testing

@testable import MirrorCache

/// A store that commits its index rows in groups: another process sees an entry only once its
/// group committed, this process sees it at once, and nothing waits longer than the group's limits.
@Suite("Cache store: group commit")
struct GroupCommitTests {
    let folder = TemporaryDirectory("group-commit")

    func open(entries: Int = 3, bytes: Int = 1 << 30, age: Duration = .seconds(3600), clock: Clock? = nil) throws -> CacheStore {
        var configuration = CacheStore.Configuration()
        configuration.groupCommit = CacheStore.GroupCommit(entries: entries, bytes: bytes, age: age)
        if let clock { configuration.now = { clock.value } }
        return try CacheStore(directory: folder.path, configuration: configuration)
    }

    /// What another process sees: a store of its own on the same folder (its own SQLite connection).
    func committedCount() throws -> Int {
        try CacheStore(directory: folder.path).statistics().entries
    }

    /// The names of `log/` in `folder` that end with `suffix`.
    func segments(_ folder: String, _ suffix: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder + "/log").filter { $0.hasSuffix(suffix) }
    }

    @discardableResult
    func put(_ store: CacheStore, _ url: String, _ text: String) throws -> CacheEntry {
        let writer = try store.makeBodyWriter()
        try writer.write(Array(text.utf8))
        let head = CachedResponseHead(status: 200, headers: ["Content-Type": "text/plain"], requestTime: 1000, responseTime: 1001)
        return try store.store(url: url, request: [:], head: head, body: writer)
    }

    @Test func rowsCommitOnceTheGroupIsFull() throws {
        let store = try open(entries: 3)
        try put(store, "http://a.test/1", "one")
        try put(store, "http://a.test/2", "two")
        #expect(try committedCount() == 0)
        #expect(folder.files(under: "bodies").count == 2, "the bodies are in place before their rows")
        try put(store, "http://a.test/3", "three")
        #expect(try committedCount() == 3)
    }

    @Test func aGroupWhoseRecordsReachItsSizeCommits() throws {
        // Each entry's record holds its URL and headers: a server's large headers fill a group sooner.
        let store = try open(entries: 100, bytes: 12_000)
        let large = String(repeating: "x", count: 5_000)
        try put(store, "http://a.test/1?\(large)", "one")
        try put(store, "http://a.test/2?\(large)", "two")
        #expect(try committedCount() == 0)
        try put(store, "http://a.test/3?\(large)", "three")
        #expect(try committedCount() == 3)
    }

    @Test func aGroupOlderThanItsAgeCommitsWithTheNextEntry() throws {
        let clock = Clock()
        clock.value = 1000
        let store = try open(entries: 100, age: .milliseconds(50), clock: clock)
        try put(store, "http://a.test/1", "one")
        clock.value += 0.08
        #expect(try committedCount() == 0)
        try put(store, "http://a.test/2", "two")
        #expect(try committedCount() == 2)
    }

    @Test func thisProcessFindsAPendingEntryAtOnce() throws {
        let store = try open()
        let stored = try put(store, "http://a.test/x", "hello")
        let found = try #require(try store.entry(for: "http://a.test/x", request: [:]))
        #expect(found == stored)
        #expect(try store.body(of: found)?.collect() == Array("hello".utf8))
        #expect(try committedCount() == 1, "looking a pending URL up commits its group")
    }

    @Test func commitPendingAndEveryOtherUseOfTheIndexCommitTheGroup() throws {
        let store = try open()
        try put(store, "http://a.test/1", "one")
        try store.commitPending()
        #expect(try committedCount() == 1)
        try put(store, "http://a.test/2", "two")
        #expect(try store.statistics().entries == 2)
        #expect(try committedCount() == 2)
        try put(store, "http://a.test/3", "three")
        try store.synchronize()
        #expect(try committedCount() == 3)
    }

    @Test func aReplacedBodyGoesWhenTheReplacementCommits() throws {
        let store = try open()
        try put(store, "http://a.test/x", "old")
        try store.commitPending()
        try put(store, "http://a.test/x", "new")
        #expect(folder.files(under: "bodies").count == 2, "the old body is still the committed entry's")
        try store.commitPending()
        #expect(folder.files(under: "bodies").count == 1)
        let found = try #require(try store.entry(for: "http://a.test/x", request: [:]))
        #expect(try store.body(of: found)?.collect() == Array("new".utf8))
    }

    @Test func aBodyGivenUpAndTakenAgainInOneGroupStays() throws {
        let store = try open(entries: 10)
        try put(store, "http://a.test/1", "shared")
        try store.commitPending()
        try put(store, "http://a.test/1", "changed")  // gives the shared body up…
        try put(store, "http://a.test/2", "shared")  // …which the next entry of the group takes again
        try store.commitPending()
        let two = try #require(try store.entry(for: "http://a.test/2", request: [:]))
        #expect(try store.body(of: two)?.collect() == Array("shared".utf8))
        #expect(folder.files(under: "bodies").count == 2)
    }

    @Test func entriesAKilledStoreHadNotCommittedAreIndexedByTheNextOne() throws {
        let store = try open()
        try put(store, "http://a.test/1", "one")
        try put(store, "http://a.test/2", "two")
        // The folder as a kill -9 leaves it now: bodies and metadata in place, no rows, the log unlocked.
        let killed = TemporaryDirectory("group-commit-killed")
        defer { killed.remove() }
        try FileManager.default.removeItem(atPath: killed.path)
        try FileManager.default.copyItem(atPath: folder.path, toPath: killed.path)
        #expect(try segments(killed.path, ".open").count == 1)
        let reopened = try CacheStore(directory: killed.path)
        #expect(try reopened.statistics().entries == 2)
        let two = try #require(try reopened.entry(for: "http://a.test/2", request: [:]))
        #expect(try reopened.body(of: two)?.collect() == Array("two".utf8))
        #expect(try segments(killed.path, ".open").isEmpty, "the killed store's segment is sealed once indexed")
        #expect(try segments(killed.path, ".log").count == 1)
        // A live store's log is locked: a store opened beside it takes nothing from it.
        #expect(try committedCount() == 0)
        #expect(try segments(folder.path, ".open").count == 1)
    }

    @Test func storesAndLookupsGoOnWhileAGroupCommits() throws {
        let store = try open(entries: 16)
        let writers = 4
        let each = 150
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: writers) { writer in
            for number in 0..<each {
                let url = "http://a.test/\(writer)/\(number)"
                do {
                    let stored = try put(store, url, "body of \(url)")
                    // Pending, committing or committed, an entry is found at once, with its body.
                    let found = try store.entry(for: url, request: [:])
                    let body = try found.flatMap { store.body(of: $0) }?.collect()
                    if found != stored || body != Array("body of \(url)".utf8) {
                        failures.withLock { $0.append(url) }
                    }
                } catch {
                    failures.withLock { $0.append("\(url): \(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
        try store.commitPending()
        #expect(try committedCount() == writers * each)
        #expect(try store.verify(repair: false).isHealthy)
    }

    @Test func aStoreLetGoCommitsItsGroup() throws {
        do {
            let store = try open()
            try put(store, "http://a.test/1", "one")
        }
        #expect(try committedCount() == 1)
        #expect(try segments(folder.path, ".open").isEmpty)
        #expect(try segments(folder.path, ".log").count == 1, "its segment is sealed")
    }
}
