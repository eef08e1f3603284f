import Foundation
import NIOHTTP1
import Testing

@testable import MirrorCache

@Suite("Cache store")
struct CacheStoreTests {
    let folder = TemporaryDirectory("cache-store")

    func head(_ headers: [(String, String)] = [("Content-Type", "text/plain")], status: Int = 200) -> CachedResponseHead {
        CachedResponseHead(status: status, headers: HTTPHeaders(headers), requestTime: 1000, responseTime: 1001)
    }

    @discardableResult
    func put(
        _ store: CacheStore, _ url: String, _ body: [UInt8], request: HTTPHeaders = [:],
        head: CachedResponseHead? = nil
    ) throws -> CacheEntry {
        let writer = try store.makeBodyWriter()
        try writer.write(body)
        return try store.store(url: url, request: request, head: head ?? self.head(), body: writer)
    }

    @Test func storesAndReturnsAnEntryWithItsBody() throws {
        let store = try CacheStore(directory: folder.path)
        let stored = try put(
            store, "http://a.test/x", Array("hello".utf8),
            head: head([("Content-Type", "text/plain"), ("ETag", "\"1\""), ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2")]))
        let found = try #require(try store.entry(for: "http://a.test/x", request: [:]))
        #expect(found == stored)
        #expect(found.status == 200)
        #expect(found.headers["set-cookie"].isEmpty, "a session is never stored")
        #expect(found.headers.first(name: "etag") == "\"1\"")
        #expect(found.requestTime == 1000 && found.responseTime == 1001)
        #expect(found.size == 5)
        #expect(try store.body(of: found)?.collect() == Array("hello".utf8))
        #expect(try store.entry(for: "http://a.test/other", request: [:]) == nil)
        #expect(folder.files(under: "tmp").isEmpty)
    }

    @Test func identicalBodiesAreStoredOnce() throws {
        let store = try CacheStore(directory: folder.path)
        let body = [UInt8](repeating: 7, count: 10_000)
        try put(store, "http://a.test/1", body)
        try put(store, "http://a.test/2", body)
        let statistics = try store.statistics()
        #expect(statistics.entries == 2)
        #expect(statistics.bodies == 1)
        #expect(statistics.bodyBytes == 10_000)
        #expect(folder.files(under: "bodies").count == 1)
        try store.remove(url: "http://a.test/1")
        #expect(try store.body(of: try #require(try store.entry(for: "http://a.test/2", request: [:])))?.collect() == body)
        try store.remove(url: "http://a.test/2")
        #expect(folder.files(under: "bodies").isEmpty)
    }

    @Test func varyKeepsOneVariantPerRequestValue() throws {
        let store = try CacheStore(directory: folder.path)
        let varying = head([("Vary", "Accept-Language")])
        try put(store, "http://a.test/v", Array("en".utf8), request: ["Accept-Language": "en"], head: varying)
        try put(store, "http://a.test/v", Array("fr".utf8), request: ["Accept-Language": "fr"], head: varying)
        #expect(try store.entries(for: "http://a.test/v").count == 2)
        let french = try #require(try store.entry(for: "http://a.test/v", request: ["Accept-Language": "fr"]))
        #expect(try store.body(of: french)?.collect() == Array("fr".utf8))
        #expect(try store.entry(for: "http://a.test/v", request: ["Accept-Language": "de"]) == nil)
        // Storing the same variant again replaces it.
        try put(store, "http://a.test/v", Array("fr2".utf8), request: ["Accept-Language": "fr"], head: varying)
        #expect(try store.entries(for: "http://a.test/v").count == 2)
    }

    @Test(arguments: [100, 1_000_000])  // in-memory tier and streamed from disk
    func aDamagedBodyDropsOnlyThatEntry(size: Int) throws {
        let store = try CacheStore(directory: folder.path)
        let bad = try put(store, "http://a.test/bad", [UInt8](repeating: 1, count: size))
        let good = try put(store, "http://a.test/good", [UInt8](repeating: 2, count: size))
        let path = store.bodyPath(bad.digest)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[size / 2] ^= 0x55
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let reopened = try CacheStore(directory: folder.path)
        let damaged = try #require(try reopened.entry(for: "http://a.test/bad", request: [:]))
        if let body = reopened.body(of: damaged) {
            #expect(throws: CacheError.self) { try body.collect() }  // streamed: detected at the end
        }
        #expect(try reopened.entry(for: "http://a.test/bad", request: [:]) == nil)
        let intact = try #require(try reopened.entry(for: "http://a.test/good", request: [:]))
        #expect(try reopened.body(of: intact)?.collect() == [UInt8](repeating: 2, count: size))
        #expect(good.digest != bad.digest)
    }

    /// A stored body is given a second name (a mirrored folder's file) only once checked: then it
    /// is the same file, which outlives the entry; a damaged body gets no link and is dropped.
    @Test(arguments: [100, 1_000_000])
    func aBodyIsLinkedOnlyWhenIntact(size: Int) throws {
        let store = try CacheStore(directory: folder.path)
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let entry = try put(store, "http://a.test/intact", bytes)
        let linked = folder.path + "/linked"
        #expect(store.linkBody(of: entry, to: linked))
        let inode = { (path: String) in try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? UInt64 }
        #expect(try inode(linked) == inode(store.bodyPath(entry.digest)))
        #expect(!store.linkBody(of: entry, to: linked), "an existing file was replaced")
        try store.clear()
        #expect(try Data(contentsOf: URL(fileURLWithPath: linked)) == Data(bytes))

        let damaged = try put(store, "http://a.test/damaged", bytes)
        let handle = try #require(FileHandle(forWritingAtPath: store.bodyPath(damaged.digest)))
        try handle.seek(toOffset: UInt64(size / 2))
        try handle.write(contentsOf: [bytes[size / 2] ^ 0x55])
        try handle.close()
        #expect(!store.linkBody(of: damaged, to: folder.path + "/damaged"))
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/damaged"))
        #expect(try store.entry(for: "http://a.test/damaged", request: [:]) == nil)
    }

    /// A small body checked once is not hashed again while its file is unchanged, and its file may
    /// be handed out to be sent as it is; a file damaged after that check (rewritten in place,
    /// same size) is not handed out, is checked again when read, and dropped.
    @Test func aBodyDamagedAfterItWasCheckedIsStillCaught() throws {
        var configuration = CacheStore.Configuration()
        configuration.memoryCapacity = 0  // every read goes to the file
        let store = try CacheStore(directory: folder.path, configuration: configuration)
        let entry = try put(store, "http://a.test/checked", [UInt8](repeating: 4, count: 5000))
        // Written an hour ago: old enough to be remembered as checked.
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -3600)],
            ofItemAtPath: store.bodyPath(entry.digest))
        #expect(try store.body(of: entry)?.collect() == [UInt8](repeating: 4, count: 5000))
        let checked = try #require(store.body(of: entry))
        let descriptor = try #require(checked.openCheckedFile())
        close(descriptor)
        #expect(try checked.collect() == [UInt8](repeating: 4, count: 5000))
        let handle = try #require(FileHandle(forWritingAtPath: store.bodyPath(entry.digest)))
        try handle.seek(toOffset: 100)
        try handle.write(contentsOf: [9])
        try handle.close()
        let damaged = try #require(store.body(of: entry))
        #expect(damaged.openCheckedFile() == nil)
        #expect(throws: CacheError.self) { try damaged.collect() }
        #expect(try store.entry(for: "http://a.test/checked", request: [:]) == nil)
    }

    /// A large body is streamed, never held whole: read to its end once and found intact, its
    /// file may be handed out to be sent as it is.
    @Test func aLargeBodyReadWholeOnceIsHandedOutAsAFile() async throws {
        let store = try CacheStore(directory: folder.path)
        let bytes = (0..<600_000).map { UInt8(truncatingIfNeeded: $0 * 31) }
        let entry = try put(store, "http://a.test/large", bytes)
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -3600)],
            ofItemAtPath: store.bodyPath(entry.digest))
        let first = try #require(store.body(of: entry))
        #expect(first.bytesInMemory == nil && first.openCheckedFile() == nil)
        var read: [UInt8] = []
        for try await chunk in first.chunks() { read += chunk }
        #expect(read == bytes)
        let second = try #require(store.body(of: entry))
        let descriptor = try #require(second.openCheckedFile())
        defer { close(descriptor) }
        var info = stat()
        #expect(fstat(descriptor, &info) == 0 && info.st_size == 600_000)
    }

    /// Lookups are remembered, but what another process (here another connection) commits, and
    /// what this store writes, is seen by the next lookup.
    @Test func aRememberedLookupSeesWhatAnotherProcessCommits() throws {
        let ours = try CacheStore(directory: folder.path)
        let theirs = try CacheStore(directory: folder.path)
        _ = try put(ours, "http://a.test/shared", Array("first".utf8))
        #expect(try ours.entry(for: "http://a.test/shared", request: [:])?.size == 5)
        #expect(try ours.entry(for: "http://a.test/shared", request: [:])?.size == 5)
        _ = try put(theirs, "http://a.test/shared", Array("second version".utf8))
        let seen = try #require(try ours.entry(for: "http://a.test/shared", request: [:]))
        #expect(try ours.body(of: seen)?.collect() == Array("second version".utf8))
        try theirs.remove(url: "http://a.test/shared")
        #expect(try ours.entry(for: "http://a.test/shared", request: [:]) == nil)
        _ = try put(ours, "http://a.test/shared", Array("third".utf8))
        #expect(try ours.entry(for: "http://a.test/shared", request: [:])?.size == 5)
        try ours.remove(url: "http://a.test/shared")
        #expect(try ours.entry(for: "http://a.test/shared", request: [:]) == nil)
    }

    /// An index of an earlier version, its entries stored in the order of their ids, is moved to
    /// the layout that stores them in the order they come when opened, and keeps every entry.
    @Test func anIndexOfTheEarlierLayoutKeepsItsEntries() throws {
        let urls = (0..<3).map { "http://a.test/\($0)" }
        do {
            let store = try CacheStore(directory: folder.path)
            for url in urls { try put(store, url, Array(url.utf8)) }
            try store.synchronize()
        }
        func layout(of index: CacheIndex) throws -> String {
            guard case .text(let sql) = try index.database.scalar("SELECT sql FROM sqlite_master WHERE name = 'entries'") else { return "" }
            return sql
        }
        do {
            let index = try CacheIndex(path: folder.path + "/index.sqlite")
            try index.database.execute(
                """
                CREATE TABLE entries_by_id (
                    id TEXT PRIMARY KEY, method TEXT NOT NULL, url TEXT NOT NULL, vary_key TEXT NOT NULL,
                    status INTEGER NOT NULL, headers TEXT NOT NULL, request_time REAL NOT NULL,
                    response_time REAL NOT NULL, digest TEXT NOT NULL, size INTEGER NOT NULL, last_access REAL NOT NULL
                ) WITHOUT ROWID;
                INSERT INTO entries_by_id SELECT * FROM entries;
                DROP TABLE entries;
                ALTER TABLE entries_by_id RENAME TO entries;
                CREATE INDEX entries_by_url ON entries(url);
                """)
            #expect(try layout(of: index).contains("WITHOUT ROWID"))
        }
        let store = try CacheStore(directory: folder.path)
        #expect(try store.statistics().entries == 3)
        for url in urls {
            let entry = try #require(try store.entry(for: url, request: [:]))
            #expect(try store.body(of: entry)?.collect() == Array(url.utf8))
        }
        try put(store, urls[0], Array("changed".utf8))
        #expect(try store.statistics().entries == 3, "an entry stored again replaces its row")
        let index = try CacheIndex(path: folder.path + "/index.sqlite")
        #expect(try !layout(of: index).contains("WITHOUT ROWID"))
    }

    @Test func aMissingBodyFileIsAMissNotAnError() throws {
        let store = try CacheStore(directory: folder.path)
        let entry = try put(store, "http://a.test/gone", [UInt8](repeating: 3, count: 500_000))
        try FileManager.default.removeItem(atPath: store.bodyPath(entry.digest))
        #expect(store.body(of: entry) == nil)
        #expect(try store.entry(for: "http://a.test/gone", request: [:]) == nil)
    }

    @Test func verifyFindsAndRepairsDamage() throws {
        let store = try CacheStore(directory: folder.path)
        let damaged = try put(store, "http://a.test/1", [UInt8](repeating: 1, count: 2000))
        let missing = try put(store, "http://a.test/2", [UInt8](repeating: 2, count: 2000))
        try put(store, "http://a.test/3", [UInt8](repeating: 3, count: 2000))
        try Data([9, 9, 9]).write(to: URL(fileURLWithPath: store.bodyPath(damaged.digest)))
        try FileManager.default.removeItem(atPath: store.bodyPath(missing.digest))
        try Data([1]).write(to: URL(fileURLWithPath: folder.path + "/bodies/00orphan"))

        let report = try store.verify(repair: false)
        #expect(report.entriesChecked == 3)
        #expect(report.damagedBodies == ["http://a.test/1"])
        #expect(report.missingBodies == ["http://a.test/2"])
        #expect(!report.isHealthy)
        let repaired = try store.verify(repair: true)
        #expect(repaired.repaired)
        #expect(try store.verify(repair: false).isHealthy)
        #expect(try store.statistics().entries == 1)
    }

    @Test func aLostIndexIsRebuiltFromMetadata() throws {
        do {
            let store = try CacheStore(directory: folder.path)
            for index in 0..<20 { try put(store, "http://a.test/\(index)", Array("body \(index)".utf8)) }
        }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: folder.path + "/index.sqlite" + suffix) }
        let store = try CacheStore(directory: folder.path)
        #expect(try store.statistics().entries == 20)
        let entry = try #require(try store.entry(for: "http://a.test/7", request: [:]))
        #expect(try store.body(of: entry)?.collect() == Array("body 7".utf8))
    }

    @Test func aCorruptIndexIsReportedAndRepairRebuildsIt() throws {
        do {
            let store = try CacheStore(directory: folder.path)
            for index in 0..<10 { try put(store, "http://a.test/\(index)", Array("body \(index)".utf8)) }
            try store.synchronize()
        }
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: folder.path + "/index.sqlite" + suffix) }
        try Data(repeating: 0x5a, count: 16_384).write(to: URL(fileURLWithPath: folder.path + "/index.sqlite"))
        #expect {
            _ = try CacheStore(directory: folder.path)
        } throws: { error in
            (error as? CacheError)?.code == .corruptIndex
        }
        let report = try CacheStore.repair(directory: folder.path)
        #expect(report.rebuiltEntries == 10)
        let store = try CacheStore(directory: folder.path)
        #expect(try store.statistics().entries == 10)
    }

    @Test func evictsLeastRecentlyUsedBetweenWatermarks() throws {
        var clock = 0.0
        let time = Clock()
        var configuration = CacheStore.Configuration()
        configuration.diskCapacity = 100_000
        configuration.now = { time.value }
        let store = try CacheStore(directory: folder.path, configuration: configuration)
        // Ten distinct 9,000-byte bodies: 90,000 bytes, under the 95,000 high watermark.
        for index in 0..<10 {
            clock += 100
            time.value = clock
            try put(store, "http://a.test/\(index)", [UInt8](repeating: UInt8(index), count: 9000))
        }
        #expect(try store.statistics().entries == 10)
        // Use the three oldest again so they become the most recent (uses are recorded at a
        // one-minute granularity, so the clock moves 100 s a step).
        for index in 0..<3 {
            clock += 100
            time.value = clock
            _ = store.body(of: try #require(try store.entry(for: "http://a.test/\(index)", request: [:])))
        }
        // One more body crosses 95 %: eviction goes down to 90 % (90,000 bytes).
        clock += 100
        time.value = clock
        try put(store, "http://a.test/new", [UInt8](repeating: 99, count: 9000))
        let remaining = Set(try store.allEntries().map(\.url))
        #expect(try store.statistics().bodyBytes <= 90_000)
        #expect(remaining.contains("http://a.test/new"))
        for index in 0..<3 { #expect(remaining.contains("http://a.test/\(index)"), "recently used entry \(index) was evicted") }
        #expect(!remaining.contains("http://a.test/3"), "the least recently used entry survived")
        #expect(remaining.count == 10)
    }

    @Test func updateHeadKeepsTheBody() throws {
        let store = try CacheStore(directory: folder.path)
        let entry = try put(store, "http://a.test/x", Array("kept".utf8), head: head([("ETag", "\"1\""), ("Cache-Control", "max-age=0")]))
        let newHead = CachedResponseHead(
            status: 200, headers: ["ETag": "\"1\"", "Cache-Control": "max-age=60"],
            requestTime: 2000, responseTime: 2001)
        try store.updateHead(of: entry, to: newHead)
        let reopened = try CacheStore(directory: folder.path)
        let updated = try #require(try reopened.entry(for: "http://a.test/x", request: [:]))
        #expect(updated.headers.first(name: "cache-control") == "max-age=60")
        #expect(updated.responseTime == 2001)
        #expect(try reopened.body(of: updated)?.collect() == Array("kept".utf8))
    }

    @Test func clearRemovesEverything() throws {
        let store = try CacheStore(directory: folder.path)
        for index in 0..<5 { try put(store, "http://a.test/\(index)", Array("b\(index)".utf8)) }
        try store.clear()
        #expect(try store.statistics().entries == 0)
        #expect(folder.files(under: "bodies").isEmpty)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: folder.path + "/index.sqlite" + suffix) }
        #expect(try CacheStore(directory: folder.path).statistics().entries == 0, "a rebuilt index brings nothing back")
    }

    @Test func twoStoresOnOneFolderSeeEachOthersEntries() throws {
        let first = try CacheStore(directory: folder.path)
        let second = try CacheStore(directory: folder.path)
        try put(first, "http://a.test/from-first", Array("1".utf8))
        try put(second, "http://a.test/from-second", Array("2".utf8))
        #expect(try first.entry(for: "http://a.test/from-second", request: [:]) != nil)
        #expect(try second.entry(for: "http://a.test/from-first", request: [:]) != nil)
    }
}

/// A settable clock for tests.
final class Clock: @unchecked Sendable {
    private let lock = NSLock()
    private var _value = 0.0
    var value: Double {
        get { lock.withLock { _value } }
        set { lock.withLock { _value = newValue } }
    }
}
