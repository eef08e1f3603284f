import Logging
import PostgresNIO

/// A leased connection, through which every statement of a shared crawl goes. postgres-nio
/// hands a statement to its connection without waiting to learn whether it arrived: written
/// to a connection that has closed (the server restarted after the lease), the statement is
/// dropped and whoever waits for its rows waits forever (vapor/postgres-nio#487, reverted by
/// #501). So a statement is only sent on a connection that is open; on one that closed, it
/// fails with `Closed`, a transient error, and `SharedDatabase.retrying` starts again on
/// another connection. What is left is the instant between that check and the write.
struct SharedConnection: Sendable {
    /// The connection closed before a statement was sent on it.
    struct Closed: Error, CustomStringConvertible {
        var description: String { "the connection to the database closed" }
    }

    let connection: PostgresConnection
    let logger: Logger

    /// Runs `query`; its rows follow.
    @discardableResult
    func query(_ query: PostgresQuery) async throws -> PostgresRowSequence {
        guard !connection.isClosed else { throw Closed() }
        return try await connection.query(query, logger: logger)
    }

    /// Runs `statement`, prepared on this connection the first time; its rows follow.
    func execute<Statement: PostgresPreparedStatement>(
        _ statement: Statement
    ) async throws -> AsyncThrowingMapSequence<PostgresRowSequence, Statement.Row> {
        guard !connection.isClosed else { throw Closed() }
        return try await connection.execute(statement, logger: logger)
    }

    /// Runs `body` between `BEGIN` and `COMMIT`, each sent as any other statement; rolls back
    /// when `body` throws, and throws `body`'s error.
    func transaction<Result: Sendable>(_ body: (SharedConnection) async throws -> Result) async throws -> Result {
        try await query("BEGIN")
        let result: Result
        do {
            result = try await body(self)
        } catch {
            // A connection that closed has rolled back already; a failed ROLLBACK ends with it.
            _ = try? await query("ROLLBACK")
            throw error
        }
        try await query("COMMIT")
        return result
    }
}
