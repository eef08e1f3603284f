import Foundation
import MirrorLock
import MirrorSQLite
import MirrorTestSupport
import Testing

@Suite("SQLite in WAL mode")
final class SQLiteTests {
    /// A folder for each test (Swift Testing makes a new instance per test); `deinit` removes it.
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mirror-sqlite-\(UUID().uuidString)")

    init() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    @Test func storesAndReadsEveryValueKind() throws {
        let database = try SQLiteDatabase(path: folder.appendingPathComponent("kinds.db").path)
        try database.execute("CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB, n TEXT)")
        try database.statement("INSERT INTO t VALUES (?, ?, ?, ?, ?)")
            .run([.integer(Int64.max), .real(0.25), .text("ünïcode"), .blob([0, 1, 255]), .null])
        let row = try database.statement("SELECT i, r, s, b, n FROM t").firstRow { row in
            (row.int64(0), row.double(1), row.string(2), row.blob(3), row.optionalString(4))
        }
        #expect(row?.0 == Int64.max)
        #expect(row?.1 == 0.25)
        #expect(row?.2 == "ünïcode")
        #expect(row?.3 == [0, 1, 255])
        #expect(row?.4 == nil)
    }

    @Test func aFailedTransactionRollsBack() throws {
        let database = try SQLiteDatabase(path: folder.appendingPathComponent("tx.db").path)
        try database.execute("CREATE TABLE t (k TEXT PRIMARY KEY)")
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try database.transaction {
                try database.statement("INSERT INTO t VALUES (?)").run(["a"])
                throw Abort()
            }
        }
        #expect(try database.scalar("SELECT count(*) FROM t") == .integer(0))
    }

    @Test func walDatabaseSurvivesASecondProcessWriting() async throws {
        let path = folder.appendingPathComponent("shared.db").path
        let database = try SQLiteDatabase(path: path)
        #expect(try database.scalar("PRAGMA journal_mode=WAL") == .text("wal"))
        try database.execute("CREATE TABLE entries (id INTEGER PRIMARY KEY, writer TEXT)")
        for _ in 0..<50 { try database.statement("INSERT INTO entries (writer) VALUES (?)").run(["us"]) }

        // Another process writes to the same file while our connection stays open.
        let script = """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1], timeout=10)
            for i in range(200):
                db.execute("INSERT INTO entries (writer) VALUES ('them')")
                db.commit()
            db.close()
            """
        let process = try Subprocess("/usr/bin/env", ["python3", "-c", script, path])
        for _ in 0..<50 { try database.statement("INSERT INTO entries (writer) VALUES (?)").run(["us"]) }
        #expect(try await process.exit() == .exited(0))

        #expect(try database.scalar("SELECT count(*) FROM entries WHERE writer = 'them'") == .integer(200))
        #expect(try database.scalar("SELECT count(*) FROM entries WHERE writer = 'us'") == .integer(100))
        #expect(try database.scalar("PRAGMA integrity_check") == .text("ok"))
    }

    @Test func garbageFileIsReportedAsCorruption() throws {
        let path = folder.appendingPathComponent("garbage.db").path
        try Data(repeating: 0x42, count: 8192).write(to: URL(fileURLWithPath: path))
        let database = try SQLiteDatabase(path: path)
        do {
            try database.execute("SELECT * FROM sqlite_master")
            Issue.record("a garbage file opened as a database")
        } catch {
            #expect(error.isCorruption)
        }
    }

    /// A database read through a function, as `mirror search` reads a bundle's index in place:
    /// a query reads only the pages it needs, and a read that fails says why.
    @Test func aDatabaseIsQueriedInPlaceThroughReads() throws {
        let path = folder.appendingPathComponent("in-place.db").path
        let made = try SQLiteDatabase(path: path)
        try made.execute("PRAGMA page_size = 4096; CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)")
        try made.transaction {
            for key in 0..<5_000 {
                try made.statement("INSERT INTO t VALUES (?, ?)").run([
                    .integer(Int64(key)), .text("value \(key) " + String(repeating: "x", count: 100)),
                ])
            }
        }
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let pages = bytes.count / 4096
        let read = Locked<Set<Int>>([])
        let database = try SQLiteDatabase(size: bytes.count, name: "in-place") { buffer, offset in
            read.withLock { _ = $0.insert(offset / 4096) }
            bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + buffer.count])) }
        }
        #expect(
            try database.statement("SELECT v FROM t WHERE k = ?").firstRow([.integer(4321)]) { $0.string(0) }?.hasPrefix("value 4321 ")
                == true)
        #expect(read.withLock { $0.count } <= 6 && pages > 100, "\(read.withLock { $0.count }) of \(pages) pages read")
        #expect(throws: SQLiteError.self) { try database.execute("CREATE TABLE u (x)") }
        // A sort larger than the sorter's memory spills to a temporary file, which the default VFS makes.
        try database.execute("PRAGMA cache_size = 1")
        let sorted = try database.statement(
            "SELECT v FROM t, (SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4) ORDER BY v DESC"
        )
        .rows { $0.string(0) }
        #expect(sorted.count == 20_000 && sorted.first?.hasPrefix("value 999 ") == true)

        struct Unreadable: Error {}
        let failing = try SQLiteDatabase(size: bytes.count, name: "failing") { buffer, offset in
            if offset > 0 { throw Unreadable() }
            bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + buffer.count])) }
        }
        #expect(throws: SQLiteError.self) { try failing.execute("SELECT count(*) FROM t") }
        #expect(failing.readFailure is Unreadable)
        #expect(database.readFailure == nil)
    }
}
