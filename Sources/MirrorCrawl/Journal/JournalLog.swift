import MirrorLock
import MirrorSQLite

/// The journal's records, group-committed: they queue in memory and a batch commits in one
/// transaction once it is large or old enough, and at the end. Records commit in the order
/// they were made, so whatever a `kill -9` leaves is a prefix of them; callers order their
/// records so that any prefix is a consistent state (a file before its resource, a page's links
/// queued before the page is marked done).
final class JournalLog: Sendable {
    /// Records made and not committed yet, in order.
    private struct Batch {
        var records: [JournalRecord] = []
        /// The records' `size`.
        var bytes = 0
        var oldest: ContinuousClock.Instant?
    }

    /// A batch commits once it holds this many records… The journal's tables are each indexed by
    /// URL, which takes rows at random places: a small batch dirties a page of each index per
    /// record, written to the WAL and copied back at a checkpoint, where a large batch shares the
    /// pages (BENCHMARKS.md, "SQLite's file I/O at 100,000 pages"). A kill loses at most a
    /// batch, which the next crawl takes from the cache.
    private static let batchSize = 4096
    /// …or this many bytes (pages' texts are large: a batch's memory stays bounded)…
    private static let batchBytes = 2 << 20
    /// …or its oldest record is this old.
    private static let batchAge: Duration = .seconds(1)

    /// Records are made under this lock only, so making one never waits for a commit…
    private let batch = Locked(Batch())
    /// …which holds the database's: a batch is taken from the queue and committed under it, so
    /// batches commit one at a time, in the order they were made, and a record is either still
    /// queued or committed, never in between.
    private let database: Locked<SQLiteDatabase>
    /// Connections for looking rows up, one for each core: with the WAL, a lookup reads the
    /// committed rows while a batch commits, instead of waiting for it, and the folder's
    /// rewriting, on every core, looks up pages' references without waiting for each other.
    private let readers: [Locked<SQLiteDatabase>]

    init(database: sending SQLiteDatabase, readers: [Locked<SQLiteDatabase>]) {
        precondition(!readers.isEmpty, "a journal needs a connection to look rows up")
        self.database = Locked(database)
        self.readers = readers
    }

    func append(_ record: JournalRecord) throws {
        let due = batch.withLock { batch in
            let now = ContinuousClock.now
            batch.records.append(record)
            batch.bytes += record.size
            let oldest = batch.oldest ?? now
            batch.oldest = oldest
            return batch.records.count >= Self.batchSize || batch.bytes >= Self.batchBytes || now - oldest >= Self.batchAge
        }
        if due { try flush() }
    }

    /// Commits every pending record.
    func flush() throws {
        try database.withLock { database in
            let taken = batch.withLock { batch in
                defer { batch = Batch() }
                return batch
            }
            guard !taken.records.isEmpty else { return }
            do {
                try database.transaction {
                    for record in taken.records { try record.write(to: database) }
                }
            } catch {
                // Kept, ahead of any made since, for the next commit to try again.
                batch.withLock { batch in
                    batch.records.insert(contentsOf: taken.records, at: 0)
                    batch.bytes += taken.bytes
                }
                throw error
            }
        }
    }

    /// Commits every pending record, then reads what `body` reads.
    func committed<T: Sendable>(_ body: @Sendable (SQLiteDatabase) throws -> T) throws -> T {
        try flush()
        return try database.withLock { try body($0) }
    }

    /// The latest of something recorded: what `pending` finds in the last record it matches,
    /// else what `committed` reads.
    func latest<T: Sendable>(pending: @Sendable (JournalRecord) -> T?, committed: @Sendable (SQLiteDatabase) throws -> T?) throws -> T? {
        try database.withLock { database in
            let queued = batch.withLock { batch in
                batch.records.reversed().lazy.compactMap(pending).first
            }
            return try queued ?? committed(database)
        }
    }

    /// Reads committed rows on a reader connection: the first free one, else the first.
    func lookup<T: Sendable>(_ body: @Sendable (SQLiteDatabase) throws -> T) throws -> T {
        for reader in readers.dropFirst() {
            if let result = try reader.withLockIfAvailable({ try body($0) }) { return result }
        }
        return try readers[0].withLock { try body($0) }
    }
}
