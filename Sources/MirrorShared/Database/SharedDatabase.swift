import Foundation
public import Logging
import MirrorCore
import MirrorLock
import PostgresNIO

/// The PostgreSQL database a shared crawl keeps its state in (`--shared postgres://…`): a pool
/// of connections, the schema made current on first use, and every statement retried with
/// back-off while the database is unreachable or restarting, up to `patience`, each statement
/// on a connection still open (`SharedConnection`). An attempt that has not ended after a third
/// of it (a statement that went out as its connection closed, which postgres-nio never
/// answers) is abandoned, and the pool replaced by a new one.
public final class SharedDatabase: Sendable {
    /// The address without its password, for messages.
    public let address: String
    private let configuration: PostgresClient.Configuration
    /// The pool and the task running it; replaced when an attempt wedges.
    private let pool: Locked<(client: PostgresClient, runner: Task<Void, Never>)>
    let logger: Logger
    /// How long a statement is retried while the database cannot be reached.
    let patience: Duration

    /// Connects to `url` (`postgres://USER[:PASSWORD]@HOST[:PORT]/DB`, `?sslmode=disable|prefer|require`)
    /// and makes its schema current.
    public static func connect(
        _ url: String, patience: Duration = .seconds(30),
        logger: Logger = Logger(label: "mirror.shared")
    ) async throws -> SharedDatabase {
        let database = try SharedDatabase(url: url, patience: patience, logger: logger)
        do {
            try await SharedSchema.migrate(database)
        } catch {
            await database.close()
            throw error
        }
        return database
    }

    private init(url: String, patience: Duration, logger: Logger) throws {
        guard let parts = URLComponents(string: url), ["postgres", "postgresql"].contains(parts.scheme ?? ""),
            let host = parts.host, !host.isEmpty, let user = parts.user, !user.isEmpty
        else {
            throw SharedCrawlError.badAddress(url)
        }
        let name = String(parts.path.drop { $0 == "/" })
        let mode = parts.queryItems?.first { $0.name == "sslmode" }?.value ?? "disable"
        let tls: PostgresClient.Configuration.TLS
        switch mode {
        case "disable": tls = .disable
        case "prefer": tls = .prefer(.makeClientConfiguration())
        case "require": tls = .require(.makeClientConfiguration())
        default: throw SharedCrawlError.badAddress(url)
        }
        var configuration = PostgresClient.Configuration(
            host: host, port: parts.port ?? 5432, username: user,
            password: parts.password, database: name.isEmpty ? user : name, tls: tls)
        configuration.options.connectTimeout = .seconds(5)
        configuration.options.maximumConnections = 16
        // A commit does not wait for its WAL to reach the disk. A database that crashes loses
        // the last moments of the crawl's progress, never its order (the log is replayed up to a
        // point): claims go back to the queue, and what was fetched and not kept is fetched again.
        configuration.options.additionalStartupParameters = [("synchronous_commit", "off")]
        address = "postgres://\(user)@\(host):\(parts.port ?? 5432)/\(name.isEmpty ? user : name)"
        self.configuration = configuration
        self.logger = logger
        self.patience = patience
        pool = Locked(Self.makePool(configuration, logger: logger))
    }

    private static func makePool(_ configuration: PostgresClient.Configuration, logger: Logger) -> (PostgresClient, Task<Void, Never>) {
        // The pool's own log is kept to errors: it warns of a first lease racing `run()`'s start.
        var background = logger
        background.logLevel = .error
        let client = PostgresClient(configuration: configuration, backgroundLogger: background)
        return (client, Task { await client.run() })
    }

    /// Replaces `wedged` with a new pool (unless another attempt did already); the old one's
    /// connections are closed.
    private func replacePool(_ wedged: PostgresClient) {
        let old: Task<Void, Never>? = pool.withLock { pool in
            guard pool.client === wedged else { return nil }
            let runner = pool.runner
            pool = Self.makePool(configuration, logger: logger)
            return runner
        }
        old?.cancel()
    }

    /// Ends every connection.
    public func close() async {
        let runner = pool.withLock { $0.runner }
        runner.cancel()
        _ = await runner.value
    }

    /// Runs `body` on one connection, again from the start while the database cannot be reached
    /// (its connection lost, restarting), waiting 0.1 s, 0.2 s … 5 s in between, for at most
    /// `patience` in all (the pool waits for a connection as long as it is let). `body` must be
    /// safe to run twice: the database may have done it before the connection dropped.
    func retrying<Result: Sendable>(_ body: @escaping @Sendable (SharedConnection) async throws -> Result) async throws -> Result {
        let deadline = ContinuousClock.now + patience
        var wait = Duration.milliseconds(100)
        while true {
            let client = pool.withLock { $0.client }
            let attemptEnds = min(deadline, ContinuousClock.now + patience / 3)
            do {
                return try await withDeadline(attemptEnds, orThrow: { DeadlinePassed() }) { [logger] in
                    try await client.withConnection { try await body(SharedConnection(connection: $0, logger: logger)) }
                }
            } catch is DeadlinePassed where ContinuousClock.now < deadline && !Task.isCancelled {
                logger.info("a statement waited \(patience / 3) without an answer; trying again on a new pool")
                replacePool(client)
            } catch is DeadlinePassed {
                throw SharedCrawlError.unreachable(address: address, reason: "no connection within \(patience)")
            } catch let error where pool.withLock({ $0.client !== client }) && ContinuousClock.now < deadline && !Task.isCancelled {
                // Another attempt replaced this pool while this one ran on it: whatever ended it
                // (a closed pool, a cancelled lease) says nothing of the database.
                logger.info("a statement's pool was replaced (\(error)); trying again on the new one")
            } catch let error where Self.isTransient(error) && ContinuousClock.now + wait < deadline && !Task.isCancelled {
                logger.info("the database is unreachable (\(error)); trying again in \(wait)")
                try await Task.sleep(for: wait)
                wait = min(wait * 2, .seconds(5))
            } catch let error where Self.isTransient(error) {
                throw SharedCrawlError.unreachable(address: address, reason: Self.describe(error))
            }
        }
    }

    private struct DeadlinePassed: Error {}

    /// Runs `body` in one transaction, retried as `retrying` does.
    func transaction<Result: Sendable>(_ body: @escaping @Sendable (SharedConnection) async throws -> Result) async throws -> Result {
        try await retrying { connection in try await connection.transaction(body) }
    }

    /// Runs one statement, retried as `retrying` does; its rows are read by `read`.
    @discardableResult
    func query<Row: Sendable>(
        _ query: PostgresQuery,
        read: @escaping @Sendable (PostgresRow) throws -> Row = { _ in () }
    ) async throws -> [Row] {
        try await retrying { connection in
            var rows: [Row] = []
            for try await row in try await connection.query(query) { rows.append(try read(row)) }
            return rows
        }
    }

    /// Runs a statement prepared once per connection (`SharedStatement`), retried as `retrying` does.
    @discardableResult
    func execute<Statement: SharedStatement>(_ statement: Statement) async throws -> [Statement.Row] {
        try await retrying { connection in
            var rows: [Statement.Row] = []
            for try await row in try await connection.execute(statement) { rows.append(row) }
            return rows
        }
    }

    /// Whether `error` means the database could not be reached or went away (as opposed to a
    /// statement it refused): a closed connection, a connection error, or a server error of class 08 (connection),
    /// 57 (shut down, restarting) or 40 (serialization failure, deadlock).
    static func isTransient(_ error: any Error) -> Bool {
        if error is SharedConnection.Closed { return true }
        guard let error = error as? PSQLError else { return false }
        switch error.code {
        case .server:
            let state = error.serverInfo?[.sqlState] ?? ""
            return state.hasPrefix("08") || state.hasPrefix("57") || state.hasPrefix("40")
        case .connectionError, .serverClosedConnection, .uncleanShutdown, .clientClosedConnection, .poolClosed:
            return true
        default:
            return false
        }
    }

    /// A person's account of a database error: the server's own message, or the connection's.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] { return message }
        if let underlying = error.underlying { return "\(underlying)" }
        return error.code.description
    }
}
