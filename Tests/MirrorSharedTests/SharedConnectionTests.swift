import MirrorLock
import MirrorTestSupport
import Testing

@testable import MirrorShared

/// Statements on a connection that closed under them: postgres-nio never answers one written to
/// a closed connection, so each is refused before it is sent, and the attempt starts again on
/// another connection. The database's patience is six times the tests' time limit, so the
/// abandoned attempt's own deadline (a third of it) lies past that limit: only the refusal ends
/// them in time. The limit takes in starting PostgreSQL, which a loaded machine makes slow.
@Suite("a shared crawl's statements on a closed connection", .serialized)
struct SharedConnectionTests {
    static let minutes = TestTiming.minutes(3)
    let patience = Duration.seconds(Self.minutes * 60 * 6)

    @Test(.timeLimit(.minutes(Self.minutes))) func aStatementIsSentAgainOnAnotherConnection() async throws {
        try await TestPostgres.with { postgres in
            let database = try await SharedDatabase.connect(postgres.url, patience: patience)
            let attempts = Locked(0)
            let answer: Result<Int?, any Error>
            do {
                answer = .success(
                    try await database.retrying { connection in
                        if isFirst(attempts) { try await connection.connection.close().get() }
                        return try await connection.query("SELECT 42").collect().first?.decode(Int.self)
                    })
            } catch {
                answer = .failure(error)
            }
            await database.close()
            #expect(try answer.get() == 42)
            #expect(attempts.withLock { $0 } == 2)
        }
    }

    @Test(.timeLimit(.minutes(Self.minutes))) func aTransactionWhoseConnectionClosesIsRunAgainWhole() async throws {
        try await TestPostgres.with { postgres in
            let database = try await SharedDatabase.connect(postgres.url, patience: patience)
            let attempts = Locked(0)
            let outcome: Result<[Int], any Error>
            do {
                try await database.query("CREATE TABLE counted (n integer)")
                try await database.transaction { connection in
                    try await connection.query("INSERT INTO counted VALUES (1)")
                    if isFirst(attempts) { try await connection.connection.close().get() }
                    try await connection.query("INSERT INTO counted VALUES (2)")
                }
                outcome = .success(try await database.query("SELECT n FROM counted ORDER BY n") { try $0.decode(Int.self) })
            } catch {
                outcome = .failure(error)
            }
            await database.close()
            // The first attempt's insert went with its connection: the rows are the second's alone.
            #expect(try outcome.get() == [1, 2])
            #expect(attempts.withLock { $0 } == 2)
        }
    }

    /// Counts an attempt; whether it is the first.
    private func isFirst(_ attempts: Locked<Int>) -> Bool {
        attempts.withLock { count in
            count += 1
            return count == 1
        }
    }
}
