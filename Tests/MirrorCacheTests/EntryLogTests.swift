import Foundation
import NIOHTTP1
import Testing

@testable import MirrorCache

/// The entry log: what a rebuilt index is made from, how it stays small, and how the metadata
/// of the older layout (a file per entry, pending logs) is taken over.
@Suite("Cache store: entry log")
struct EntryLogTests {
    let folder = TemporaryDirectory("entry-log")

    func open(groupOf entries: Int = 1) throws -> CacheStore {
        var configuration = CacheStore.Configuration()
        configuration.groupCommit = entries == 1 ? .eachEntry : CacheStore.GroupCommit(entries: entries, age: .seconds(3600))
        return try CacheStore(directory: folder.path, configuration: configuration)
    }

    @discardableResult
    func put(_ store: CacheStore, _ url: String, _ text: String, headers: HTTPHeaders = ["Content-Type": "text/plain"]) throws -> CacheEntry
    {
        let writer = try store.makeBodyWriter()
        try writer.write(Array(text.utf8))
        let head = CachedResponseHead(status: 200, headers: headers, requestTime: 1000, responseTime: 1001)
        return try store.store(url: url, request: [:], head: head, body: writer)
    }

    func loseIndex() {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: folder.path + "/index.sqlite" + suffix) }
    }

    func logFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path + "/log").sorted()
    }

    @Test func recordsReadBackAsWritten() throws {
        let entry = CacheEntry(
            id: "abc", method: "GET", url: "http://a.test/x y", varyKey: "accept-language=fr\naccept=text/html",
            status: 203, headers: ["ETag": "\"1\"", "Set-Cookie": "a=1", "set-cookie": "b=2"], requestTime: 1.5,
            responseTime: 2.25, digest: String(repeating: "ab", count: 32), size: 12, lastAccess: 3.125)
        for record in [LogRecord.entry(entry), .removed(id: "abc", at: 4.5), .committed(through: nil), .committed(through: 4096)] {
            #expect(LogRecord(record.bytes) == record)
        }
        let bytes = LogRecord.entry(entry).bytes
        #expect(LogRecord(bytes.prefix(40)) == nil, "a record cut short is not one")
        #expect(LogRecord(Array("mirror-removed abc".utf8)) == nil)
    }

    /// A Vary key whose value ends in CR is written and read by bytes alike: written by
    /// `Character`s, CR and the line feed after it were one, and the record read back otherwise.
    @Test func aVaryValueEndingInCarriageReturnReadsBack() throws {
        let entry = CacheEntry(
            id: "abc", method: "GET", url: "http://a.test/", varyKey: "accept=x\r\nuser-agent=y z", status: 200, headers: [:],
            requestTime: 1, responseTime: 2, digest: String(repeating: "ab", count: 32), size: 1, lastAccess: 3)
        let back = try #require(LogRecord(LogRecord.entry(entry).bytes))
        guard case .entry(let read) = back else {
            Issue.record("\(back)")
            return
        }
        #expect(Array(read.varyKey.utf8) == Array(entry.varyKey.utf8))
    }

    func sample(_ number: Int) -> CacheEntry {
        CacheEntry(
            id: "id\(number)", method: "GET", url: "http://a.test/\(number)", varyKey: "", status: 200,
            headers: ["Content-Type": "text/plain"], requestTime: 1, responseTime: 2,
            digest: String(repeating: "cd", count: 32), size: 4, lastAccess: Double(number))
    }

    /// The segment at `path` copied as a kill leaves it (open, unlocked), and what the next store takes from it.
    func abandonedRecords(of path: String) throws -> [LogRecord] {
        let killed = TemporaryDirectory("entry-log-killed")
        defer { killed.remove() }
        try FileManager.default.copyItem(atPath: path, toPath: killed.path + "/" + (path as NSString).lastPathComponent)
        let logs = EntryLog.abandoned(in: killed.path)
        try #require(logs.count == 1)
        return logs[0].records
    }

    @Test func recordsAppendedWhileAGroupCommitsAreNotCountedWithIt() throws {
        let log = try EntryLog(folder: folder.path + "/log")
        try log.append([LogRecord.entry(sample(0)).bytes, LogRecord.entry(sample(1)).bytes])
        let groupEnd = log.recordsEnd  // the group taken for a commit: entries 0 and 1
        try log.append([LogRecord.entry(sample(2)).bytes])  // stored while it commits
        log.markCommitted(through: groupEnd)
        try log.append([LogRecord.entry(sample(3)).bytes])  // the marker is written before it
        #expect(try abandonedRecords(of: log.path) == [.entry(sample(2)), .entry(sample(3))])

        log.markCommitted()
        try log.append([LogRecord.removed(id: "id0", at: 9).bytes])
        #expect(try abandonedRecords(of: log.path) == [.removed(id: "id0", at: 9)])
    }

    @Test func aSegmentAnOlderVersionLeftIsReadFromItsLastMarker() throws {
        // Markers without an offset: everything before the marker itself committed.
        var bytes: [UInt8] = []
        for record in [LogRecord.entry(sample(0)), .committed(through: nil), .entry(sample(1))] {
            let count = UInt32(record.bytes.count)
            bytes += [UInt8(count & 0xff), UInt8(count >> 8 & 0xff), UInt8(count >> 16 & 0xff), UInt8(count >> 24)] + record.bytes
        }
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        let path = folder.path + "/1-2.open"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(try abandonedRecords(of: path) == [.entry(sample(1))])
    }

    @Test func aRemovedEntryStaysRemovedWhenTheIndexIsRebuilt() throws {
        do {
            let store = try open()
            try put(store, "http://a.test/kept", "the same body")
            try put(store, "http://a.test/removed", "the same body")  // its body stays: the other entry uses it
            try store.remove(url: "http://a.test/removed")
        }
        loseIndex()
        let store = try open()
        #expect(try store.entry(for: "http://a.test/kept", request: [:]) != nil)
        #expect(try store.entry(for: "http://a.test/removed", request: [:]) == nil)
        #expect(try store.statistics().entries == 1)
    }

    @Test func aRebuiltIndexHasAnEntrysLatestHead() throws {
        do {
            let store = try open(groupOf: 8)
            let first = try put(store, "http://a.test/x", "body", headers: ["ETag": "\"1\""])
            let later = CachedResponseHead(
                status: 200, headers: ["ETag": "\"1\"", "Cache-Control": "max-age=60"],
                requestTime: 2000, responseTime: 2001)
            try store.updateHead(of: first, to: later)
        }
        loseIndex()
        let store = try open()
        let rebuilt = try #require(try store.entry(for: "http://a.test/x", request: [:]))
        #expect(rebuilt.responseTime == 2001)
        #expect(rebuilt.headers.first(name: "cache-control") == "max-age=60")
        #expect(try store.body(of: rebuilt)?.collect() == Array("body".utf8))
    }

    @Test func theLogIsCompactedWhenMostOfItIsOutdated() throws {
        let store = try open(groupOf: 512)
        var entry = try put(store, "http://a.test/x", "body")
        try put(store, "http://a.test/y", "other")
        for time in 0..<1_100 {
            entry = try store.updateHead(
                of: entry,
                to: CachedResponseHead(
                    status: 200, headers: ["X-Time": "\(time)"], requestTime: Double(time), responseTime: Double(time)))
        }
        try store.commitPending()
        let before = try logFiles()
        #expect(before.count == 1)
        let grown = try #require(FileManager.default.attributesOfItem(atPath: "\(folder.path)/log/\(before[0])")[.size] as? Int)
        try store.synchronize()
        let after = try logFiles()
        #expect(after.count == 2, "the store's own segment, emptied, and the compacted one: \(after)")
        let sizes = try after.map { try #require(FileManager.default.attributesOfItem(atPath: "\(folder.path)/log/\($0)")[.size] as? Int) }
        #expect(sizes.reduce(0, +) < grown / 100)
        try store.synchronize()
        #expect(try logFiles() == after, "compacted once, not at every synchronize")

        loseIndex()
        let rebuilt = try open()
        #expect(try rebuilt.statistics().entries == 2)
        #expect(try rebuilt.entry(for: "http://a.test/x", request: [:])?.headers.first(name: "x-time") == "1099")
    }

    @Test func compactingLeavesTheSegmentOfAnotherLiveStore() throws {
        let other = try open(groupOf: 4)  // another process, still running: its segment is open
        try put(other, "http://a.test/other", "other's body")
        try other.commitPending()
        let store = try open(groupOf: 512)
        var entry = try put(store, "http://a.test/x", "body")
        for time in 0..<1_100 {
            entry = try store.updateHead(
                of: entry,
                to: CachedResponseHead(
                    status: 200, headers: ["X-Time": "\(time)"], requestTime: Double(time), responseTime: Double(time)))
        }
        try store.synchronize()
        #expect(try logFiles().filter { $0.hasSuffix(".log") }.count == 1, "the compacted segment")
        try put(other, "http://a.test/later", "stored after the compaction")
        try other.commitPending()
        #expect(try logFiles().filter { $0.hasSuffix(".open") }.count == 2, "both stores' segments stay")

        loseIndex()
        let rebuilt = try open()
        #expect(try rebuilt.statistics().entries == 3)
        #expect(try rebuilt.entry(for: "http://a.test/later", request: [:]) != nil)
        #expect(try rebuilt.entry(for: "http://a.test/x", request: [:])?.headers.first(name: "x-time") == "1099")
    }

    @Test func metadataFilesOfTheOlderLayoutAreTakenOver() throws {
        let entries: [CacheEntry]
        do {
            let store = try open()
            entries = try (0..<5).map { try put(store, "http://a.test/\($0)", "body \($0)") }
        }
        // The older layout: a metadata file per entry under entries/ab/, no log.
        try FileManager.default.removeItem(atPath: folder.path + "/log")
        for entry in entries {
            let shard = folder.path + "/entries/" + entry.id.prefix(2)
            try FileManager.default.createDirectory(atPath: shard, withIntermediateDirectories: true)
            try Data(LogRecord.entry(entry).bytes).write(to: URL(fileURLWithPath: shard + "/" + entry.id))
        }
        #expect(try open().statistics().entries == 5)
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/entries"), "the files are gone once taken over")
        loseIndex()
        let store = try open()
        #expect(try store.statistics().entries == 5)
        #expect(try store.body(of: try #require(try store.entry(for: "http://a.test/3", request: [:])))?.collect() == Array("body 3".utf8))
    }

    @Test func aPendingLogOfTheOlderLayoutIsIndexed() throws {
        let store = try open(groupOf: 100)
        try put(store, "http://a.test/1", "one")
        try put(store, "http://a.test/2", "two")
        // As the older layout left a killed writer's folder: the uncommitted metadata in pending/.
        let killed = TemporaryDirectory("entry-log-killed")
        defer { killed.remove() }
        try FileManager.default.removeItem(atPath: killed.path)
        try FileManager.default.copyItem(atPath: folder.path, toPath: killed.path)
        let segment = try #require(try FileManager.default.contentsOfDirectory(atPath: killed.path + "/log").first)
        try FileManager.default.createDirectory(atPath: killed.path + "/pending", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: "\(killed.path)/log/\(segment)", toPath: "\(killed.path)/pending/1234-5678")
        let reopened = try CacheStore(directory: killed.path)
        #expect(try reopened.statistics().entries == 2)
        #expect(!FileManager.default.fileExists(atPath: killed.path + "/pending"))
    }
}
