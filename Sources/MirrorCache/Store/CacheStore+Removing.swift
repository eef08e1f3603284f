import Logging
import MirrorCore

/// Removing entries: by URL, all of them, the least recently used (eviction), and those whose
/// body is damaged. Each removal is noted in the entry log after its rows go.
extension CacheStore {
    /// Removes every variant of `url`; returns how many entries went.
    @discardableResult
    public func remove(url: String) throws -> Int {
        let ids = try entries(for: url).map(\.id)
        try remove(ids: ids)
        return ids.count
    }

    /// Removes all entries.
    public func clear() throws {
        let digests = try writer.withIndex { index, log -> [String] in
            let digests = try index.allDigests().map(\.digest)
            try index.database.transaction { try index.deleteAll() }
            try log?.truncate()
            for path in EntryLog.segments(in: logFolder, sealedOnly: true) { try? PosixFile.remove(path) }
            return digests
        }
        reader.forgetAccess()
        memory.removeAll()
        for digest in digests { try? PosixFile.remove(bodyPath(digest)) }
    }

    /// Evicts least recently used entries until the bodies take at most `target` bytes
    /// (default: the low watermark), one entry at a time so no more goes than needed.
    /// Returns the number of entries evicted.
    @discardableResult
    public func prune(to target: Int? = nil) throws -> Int {
        let goal = target ?? Int(Double(configuration.diskCapacity) * configuration.lowWatermark)
        var evicted = 0
        while true {
            let (ids, orphans, total) = try withIndex(flushingAccess: true) { index -> ([String], [String], Int) in
                var total = try index.totalBodyBytes()
                guard total > goal else { return ([], [], total) }
                var ids: [String] = []
                var orphans: [String] = []
                try index.database.transaction {
                    for id in try index.leastRecentlyUsed(limit: 256) where total > goal {
                        let freed = try index.deleteEntry(id: id)
                        total -= freed.reduce(0) { $0 + $1.size }
                        ids.append(id)
                        orphans += freed.map(\.digest)
                    }
                }
                return (ids, orphans, total)
            }
            try logRemovals(ids)
            deleteBodies(orphans)
            evicted += ids.count
            if ids.isEmpty || total <= goal { return evicted }
        }
    }

    func remove(ids: [String]) throws {
        guard !ids.isEmpty else { return }
        let orphans = try withIndex { index in
            try index.database.transaction { try ids.flatMap { try index.deleteEntry(id: $0).map(\.digest) } }
        }
        try logRemovals(ids)
        deleteBodies(orphans)
    }

    /// Notes removed entries (their rows gone) in the entry log, so that a rebuilt index does
    /// not bring them back, and forgets their pending access times.
    func logRemovals(_ ids: [String]) throws {
        guard !ids.isEmpty else { return }
        let time = configuration.now()
        reader.forgetAccess(ids)
        try writer.logRemovals(ids.map { LogRecord.removed(id: $0, at: time).bytes })
    }

    /// Drops an entry whose body is missing or damaged, and says so.
    func dropDamaged(_ entry: CacheEntry) {
        logger.warning("\(CacheError.corruptBody(url: entry.url, digest: entry.digest))")
        memory.remove(entry.digest)
        // Every entry sharing this body is damaged too.
        let ids = (try? withIndex { try $0.entryIDs(digest: entry.digest) }) ?? [entry.id]
        try? remove(ids: ids)
        try? PosixFile.remove(bodyPath(entry.digest))
    }
}
