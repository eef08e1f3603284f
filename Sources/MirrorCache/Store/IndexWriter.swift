import MirrorCore
import MirrorLock

/// Every write to the cache's index: the write connection, and the group of stored entries
/// whose rows commit together (`CacheStore.Configuration.groupCommit`), each recorded first in
/// this store's segment of the entry log.
///
/// The connection is held for a whole transaction; the group for moments while a group commits,
/// so stores add to the next group and lookups ask about theirs meanwhile, and for the whole of
/// a `withIndex` body, which may rewrite the log. A group's age is measured by the store's clock
/// (`CacheStore.Configuration.now`).
final class IndexWriter: Sendable {
    /// Stored entries whose rows have not committed, and the log their records are in.
    private struct Group {
        /// Stored since the committing group was taken.
        var pending = PendingEntries()
        /// The group whose rows are being committed: lookups of its URLs wait for the commit.
        var committing = PendingEntries()
        /// This store's segment of the entry log, made when it first writes.
        var log: EntryLog?
    }

    private let connection: Locked<CacheIndex>
    private let group = Locked(Group())
    private let limits: CacheStore.GroupCommit
    private let logFolder: String
    private let now: @Sendable () -> Double
    /// Deletes the bodies that a commit left without an entry.
    private let deleteBodies: @Sendable ([String]) -> Void

    init(
        connection: CacheIndex, limits: CacheStore.GroupCommit, logFolder: String, now: @escaping @Sendable () -> Double,
        deleteBodies: @escaping @Sendable ([String]) -> Void
    ) {
        self.connection = Locked(connection)
        self.limits = limits
        self.logFolder = logFolder
        self.now = now
        self.deleteBodies = deleteBodies
    }

    /// Appends `entry`'s metadata to the entry log and adds it to the group, whose rows commit
    /// if that makes it due. When another thread is committing, it commits this group after its
    /// own, and this one goes on. Returns the bodies' total size after a commit; nil when none ran.
    func add(_ entry: CacheEntry) throws -> Int? {
        let record = LogRecord.entry(entry).bytes
        let time = now()
        let due = try group.withLock { group in
            try log(&group).append([record])
            return group.pending.add(entry, bytes: record.count, at: time, limits: limits)
        }
        guard due else { return nil }
        return try connection.withLockIfAvailable { try commitGroups(on: $0, all: false) }
    }

    /// Commits the rows of every entry stored so far; returns the bodies' total size then.
    func commitAll() throws -> Int {
        try connection.withLock { try commitGroups(on: $0, all: true) }
    }

    /// Whether `url` has an entry whose row has not committed yet.
    func isUncommitted(url: String) -> Bool {
        group.withLock { $0.pending.contains(url: url) || $0.committing.contains(url: url) }
    }

    /// Appends `records` (of removed entries, whose rows went before them) to the entry log.
    func logRemovals(_ records: [[UInt8]]) throws {
        try group.withLock { group in
            try log(&group).append(records)
            if group.pending.isEmpty && group.committing.isEmpty { group.log?.markCommitted() }
        }
    }

    /// Writes the times entries were last used (for LRU eviction).
    func touch(_ times: [String: Double]) {
        connection.withLock { Self.touch(times, on: $0) }
    }

    /// Runs `body` on the connection once every entry stored so far has committed, after writing
    /// the access times `times`. `body` gets this store's segment of the entry log too, and may
    /// rewrite it, when the store has one and no entry stored meanwhile waits for its row; else nil.
    func withIndex<T>(touching times: [String: Double] = [:], _ body: (CacheIndex, EntryLog?) throws -> T) throws -> T {
        try connection.withLock { index in
            _ = try commitGroups(on: index, all: true)
            if !times.isEmpty { Self.touch(times, on: index) }
            return try group.withLock { group in try body(index, group.pending.isEmpty ? group.log : nil) }
        }
    }

    /// This store's segment of the entry log, made on first use (a store that only reads makes none).
    private func log(_ group: inout Group) throws(CacheError) -> EntryLog {
        if let log = group.log { return log }
        let log = try EntryLog(folder: logFolder)
        group.log = log
        return log
    }

    /// Commits the group on `index` while one is due (`all`: while any is pending); returns the
    /// bodies' total size then.
    private func commitGroups(on index: CacheIndex, all: Bool) throws -> Int {
        while try commitGroup(on: index, all: all) {}
        return try index.totalBodyBytes()
    }

    /// Commits the group's rows on `index` in one transaction, notes it in the entry log and
    /// deletes the bodies it left unused; false when there was none. On failure the group goes
    /// back before what is pending, to be tried again.
    private func commitGroup(on index: CacheIndex, all: Bool) throws -> Bool {
        let taken = group.withLock { group -> (entries: [CacheEntry], end: Int)? in
            guard all ? !group.pending.isEmpty : group.pending.isDue(limits, at: now()) else { return nil }
            swap(&group.pending, &group.committing)
            // Where the group's records end: records appended meanwhile are not committed with it.
            return (group.committing.entries, group.log?.recordsEnd ?? 0)
        }
        guard let taken else { return false }
        let orphans: [String]
        do {
            orphans = try index.database.transaction {
                try index.add(taken.entries.count, to: .logRecords)
                return try index.upsert(taken.entries)
            }
        } catch {
            group.withLock { group in
                group.pending.prepend(group.committing)
                group.committing.removeAll()
            }
            throw error
        }
        let unused = group.withLock { group -> [String] in
            group.committing.removeAll()
            // With nothing pending, the records appended meanwhile are removals (whose rows went
            // before them): all of the log has committed.
            if group.pending.isEmpty { group.log?.markCommitted() } else { group.log?.markCommitted(through: taken.end) }
            // A body that an entry stored meanwhile uses again stays.
            let used = Set(group.pending.entries.map(\.digest))
            return orphans.filter { !used.contains($0) }
        }
        deleteBodies(unused)
        return true
    }

    private static func touch(_ times: [String: Double], on index: CacheIndex) {
        try? index.database.transaction {
            for (id, time) in times { try index.touch(id: id, at: time) }
        }
    }
}
