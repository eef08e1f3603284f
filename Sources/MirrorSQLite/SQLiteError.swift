/// An SQLite failure, with SQLite's own message and the statement that failed.
public struct SQLiteError: Error, CustomStringConvertible {
    /// The primary result code (SQLITE_BUSY, SQLITE_CORRUPT, …).
    public let code: Int32
    public let message: String
    public let sql: String?

    public init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// True when the database file is damaged or is not a database at all.
    public var isCorruption: Bool { code & 0xff == 11 || code & 0xff == 26 }  // SQLITE_CORRUPT, SQLITE_NOTADB

    public var description: String {
        if let sql { return "SQLite error \(code): \(message) (in: \(sql))" }
        return "SQLite error \(code): \(message)"
    }
}
