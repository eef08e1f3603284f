internal import CSQLite

/// A prepared statement. Bind, then step through rows; reuse after `reset()`.
public final class SQLiteStatement {
    let handle: OpaquePointer
    private let database: OpaquePointer
    public let sql: String

    init(database: OpaquePointer, sql: String) throws(SQLiteError) {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v2(database, sql, -1, &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw SQLiteError(code: code, message: String(cString: sqlite3_errmsg(database)), sql: sql)
        }
        self.handle = statement
        self.database = database
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// Clears earlier bindings and binds `values` to the parameters in order.
    @discardableResult
    public func bind(_ values: [SQLiteValue]) throws(SQLiteError) -> SQLiteStatement {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null: code = sqlite3_bind_null(handle, index)
            case .integer(let number): code = sqlite3_bind_int64(handle, index, number)
            case .real(let number): code = sqlite3_bind_double(handle, index, number)
            case .text(let text): code = sqlite3_bind_text(handle, index, text, -1, Self.transient)
            case .blob(let bytes):
                code = bytes.withUnsafeBytes { buffer in
                    sqlite3_bind_blob(
                        handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count), Self.transient)
                }
            }
            guard code == SQLITE_OK else { throw failure(code) }
        }
        return self
    }

    /// Advances to the next row; false when there are no more.
    public func step() throws(SQLiteError) -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw failure(code)
        }
    }

    /// Runs a statement that returns no rows.
    public func run(_ values: [SQLiteValue] = []) throws(SQLiteError) {
        try bind(values)
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    /// Runs the statement and maps every row.
    public func rows<T>(_ values: [SQLiteValue] = [], _ transform: (SQLiteRow) throws -> T) throws -> [T] {
        try bind(values)
        defer { sqlite3_reset(handle) }
        var result: [T] = []
        while try step() { result.append(try transform(SQLiteRow(statement: self))) }
        return result
    }

    /// Runs the statement and maps the first row, if any.
    public func firstRow<T>(_ values: [SQLiteValue] = [], _ transform: (SQLiteRow) throws -> T) throws -> T? {
        try bind(values)
        defer { sqlite3_reset(handle) }
        return try step() ? transform(SQLiteRow(statement: self)) : nil
    }

    /// Releases locks held by a partly stepped statement.
    public func reset() { sqlite3_reset(handle) }

    private func failure(_ code: Int32) -> SQLiteError {
        SQLiteError(code: code, message: String(cString: sqlite3_errmsg(database)), sql: sql)
    }

    /// SQLITE_TRANSIENT is a macro Swift cannot import: SQLite copies the bound bytes.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

/// The current row of a statement being stepped; valid until the next step.
public struct SQLiteRow {
    let statement: SQLiteStatement

    public var columnCount: Int { Int(sqlite3_column_count(statement.handle)) }

    public func isNull(_ column: Int) -> Bool {
        sqlite3_column_type(statement.handle, Int32(column)) == SQLITE_NULL
    }

    public func int(_ column: Int) -> Int { Int(sqlite3_column_int64(statement.handle, Int32(column))) }
    public func int64(_ column: Int) -> Int64 { sqlite3_column_int64(statement.handle, Int32(column)) }
    public func double(_ column: Int) -> Double { sqlite3_column_double(statement.handle, Int32(column)) }

    public func optionalInt(_ column: Int) -> Int? { isNull(column) ? nil : int(column) }
    public func optionalDouble(_ column: Int) -> Double? { isNull(column) ? nil : double(column) }

    public func string(_ column: Int) -> String {
        guard let text = sqlite3_column_text(statement.handle, Int32(column)) else { return "" }
        return String(cString: text)
    }

    public func optionalString(_ column: Int) -> String? { isNull(column) ? nil : string(column) }

    public func blob(_ column: Int) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement.handle, Int32(column)))
        guard count > 0, let pointer = sqlite3_column_blob(statement.handle, Int32(column)) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
