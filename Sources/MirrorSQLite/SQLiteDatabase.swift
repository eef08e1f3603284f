internal import CSQLite

/// One SQLite connection. Not thread-safe by itself: an owner serializes access
/// (the cache keeps its connection behind a lock). Prepared statements are cached.
public final class SQLiteDatabase {
    private let handle: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]
    public let path: String

    /// The SQLite library this program runs with, as `3.40.1`.
    public static var libraryVersion: String { String(cString: sqlite3_libversion()) }

    /// Opens (creating if needed) the database at `path`.
    /// - Parameter busyTimeoutMilliseconds: how long to wait for another process's lock.
    public convenience init(path: String, readOnly: Bool = false, busyTimeoutMilliseconds: Int32 = 10_000) throws(SQLiteError) {
        var connection: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &connection, flags, nil)
        guard code == SQLITE_OK, let connection else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(connection)
            throw SQLiteError(code: code, message: "\(message): \(path)")
        }
        self.init(handle: connection, path: path)
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
    }

    private init(handle: OpaquePointer, path: String) {
        self.handle = handle
        self.path = path
        sqlite3_extended_result_codes(handle, 1)
    }

    /// A read-only database held in memory: a copy of `bytes`, the contents of a database file
    /// (one read out of an archive, say). `name` is what errors call it.
    public convenience init(copyOf bytes: [UInt8], name: String) throws(SQLiteError) {
        var connection: OpaquePointer?
        let code = sqlite3_open_v2(":memory:", &connection, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let connection else {
            sqlite3_close_v2(connection)
            throw SQLiteError(code: code, message: "cannot open a database in memory for \(name)")
        }
        // SQLite frees the copy when the connection closes.
        guard let copy = sqlite3_malloc64(UInt64(max(bytes.count, 1))) else {
            sqlite3_close_v2(connection)
            throw SQLiteError(code: SQLITE_NOMEM, message: "no memory for \(name)")
        }
        bytes.withUnsafeBytes { source in
            if let base = source.baseAddress { copy.copyMemory(from: base, byteCount: source.count) }
        }
        let loaded = sqlite3_deserialize(
            connection, "main", copy.assumingMemoryBound(to: UInt8.self), Int64(bytes.count),
            Int64(bytes.count), UInt32(SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY))
        guard loaded == SQLITE_OK else {
            sqlite3_close_v2(connection)
            throw SQLiteError(code: loaded, message: "not a database: \(name)")
        }
        self.init(handle: connection, path: name)
    }

    /// A read-only database whose file is read in place through `read`, page by page as queries
    /// need them (one inside an archive, say): `read` fills a buffer from an offset of the
    /// file's `size` bytes, and may be called from several threads. `name` is what errors call it.
    public convenience init(
        size: Int, name: String, read: @escaping @Sendable (_ into: UnsafeMutableRawBufferPointer, _ offset: Int) throws -> Void
    ) throws(SQLiteError) {
        let connection: OpaquePointer
        do {
            connection = try SQLiteReaderVFS.connect(SQLiteReaderVFS.File(size: size, read: read))
        } catch {
            throw SQLiteError(code: error.code, message: "\(error.message): \(name)")
        }
        self.init(handle: connection, path: name)
    }

    /// Why the last read of a database opened with `init(size:name:read:)` failed, when its
    /// `read` threw; nil otherwise.
    public var readFailure: (any Error)? { SQLiteReaderVFS.lastFailure(of: handle) }

    deinit {
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that return no rows.
    public func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        guard code == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw SQLiteError(code: code, message: text, sql: sql)
        }
    }

    /// A prepared statement for `sql`, compiled once and reused.
    public func statement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let cached = statements[sql] { return cached }
        let statement = try SQLiteStatement(database: handle, sql: sql)
        statements[sql] = statement
        return statement
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back if it throws.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Reads a single value from a PRAGMA or query.
    public func scalar(_ sql: String) throws -> SQLiteValue {
        let statement = try statement(sql)
        return try statement.firstRow { row -> SQLiteValue in
            if row.isNull(0) { return .null }
            switch sqlite3_column_type(statement.handle, 0) {
            case SQLITE_INTEGER: return .integer(row.int64(0))
            case SQLITE_FLOAT: return .real(row.double(0))
            case SQLITE_BLOB: return .blob(row.blob(0))
            default: return .text(row.string(0))
            }
        } ?? .null
    }
}
