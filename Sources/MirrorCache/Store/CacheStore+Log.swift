import MirrorCore

/// What the store does with its entry log (`EntryLog`) besides appending to it: rebuild a lost
/// index, index what killed writers left, compact, and take over the metadata of older layouts.
extension CacheStore {
    /// Re-creates the index rows from the entry log: for each entry, its latest record, unless
    /// that is its removal. Entries whose body is missing or damaged are skipped. Returns how
    /// many entries were recovered.
    func rebuildIndex() throws -> Int {
        var latest: [String: LogRecord] = [:]
        EntryLog.forEachRecord(in: logFolder) { record in
            guard let (id, time) = record.key else { return }
            if let kept = latest[id]?.key, kept.time > time { return }
            latest[id] = record
        }
        let entries = latest.values.compactMap { record -> CacheEntry? in
            guard case .entry(let entry) = record, hasIntactBody(entry) else { return nil }
            return entry
        }
        try withIndex { index in
            try index.database.transaction {
                _ = try index.upsert(entries)
                try index.set(.logRecords, to: entries.count)
            }
        }
        return entries.count
    }

    /// Indexes what stores killed before their group committed left in their segments of the
    /// entry log (the records after its last `committed`), then seals those segments. A record
    /// is the latest change of its entry that the killed store made, so it replaces an older row
    /// (a kill test lost newer responses when any row was kept). Entries whose body is not whole
    /// are left out. Returns how many entries got a row or another body.
    func recoverAbandonedGroups() throws -> Int {
        var recovered = 0
        for log in EntryLog.abandoned(in: logFolder) {
            let records = log.records.filter { record in
                guard case .entry(let entry) = record else { return true }
                return hasIntactBody(entry)
            }
            let orphans = try withIndex { index in
                try index.database.transaction {
                    for case .entry(let entry) in records where try index.digest(ofEntry: entry.id) != entry.digest {
                        recovered += 1
                    }
                    return try index.apply(records)
                }
            }
            for digest in orphans { try? PosixFile.remove(bodyPath(digest)) }
            EntryLog.seal(log.path)
        }
        return recovered
    }

    /// Rewrites the entry log as one segment of the index's entries when more than two thirds
    /// of its records are outdated (replaced by later ones, or of removed entries): a nightly
    /// re-crawl appends a record for each page, and the log would otherwise grow without end.
    /// The segments of live stores stay as they are.
    /// `log` is this store's own segment, whose records the compacted segment holds too.
    func compactLogIfOutdated(index: CacheIndex, log: EntryLog?) throws {
        // The record count first: counting the entries reads the whole table.
        let records = try index.total(.logRecords)
        guard records > 1_000 else { return }
        let entries = try index.counts().entries
        guard records > 3 * entries + 1_000 else { return }
        let outdated = EntryLog.segments(in: logFolder, sealedOnly: true)
        do {
            let compacted = try EntryLog(folder: logFolder)
            var after: (url: String, id: String)?
            while true {
                let page = try index.entries(after: after, limit: 1024)
                guard let last = page.last else { break }
                try compacted.append(page.map { LogRecord.entry($0).bytes })
                compacted.markCommitted()
                after = (last.url, last.id)
            }
        }  // sealed here, before the segments it replaces go
        for path in outdated { try? PosixFile.remove(path) }
        try log?.truncate()
        try index.set(.logRecords, to: entries)
    }

    /// Takes over the metadata an older layout kept: a file per entry under `entries/ab/`
    /// (appended to a segment of the entry log, then deleted) and the pending logs of
    /// `pending/` (moved into `log/` as open segments, which `recoverAbandonedGroups` then
    /// indexes). Returns how many metadata files were taken over.
    static func adoptLegacyMetadata(_ directory: String) throws -> Int {
        let logFolder = directory + "/log"
        let pending = directory + "/pending"
        if PosixFile.exists(pending) {
            do throws(FileSystemError) {
                try PosixFile.makeFolder(logFolder)
                for name in FolderListing.names(in: pending) {
                    try PosixFile.rename("\(pending)/\(name)", to: "\(logFolder)/\(name)\(EntryLog.openSuffix)")
                }
            } catch {
                throw CacheError.io(error)
            }
            try? PosixFile.removeFolder(pending)
        }
        let entries = directory + "/entries"
        guard PosixFile.exists(entries) else { return 0 }
        var adopted = 0
        do {
            let log = try EntryLog(folder: logFolder)
            for shard in FolderListing.names(in: entries) {
                let folder = "\(entries)/\(shard)"
                let paths = FolderListing.names(in: folder).map { "\(folder)/\($0)" }
                let records = paths.compactMap { path -> [UInt8]? in
                    var stamp: FileStamp?
                    guard let size = PosixFile.size(atPath: path), size < 1 << 20,
                        let bytes = try? FileReading.contents(of: path, expectedSize: size, stamp: &stamp),
                        LogRecord(bytes) != nil
                    else { return nil }
                    return bytes
                }
                try log.append(records)
                log.markCommitted()
                adopted += records.count
                for path in paths { try? PosixFile.remove(path) }  // once their records are in the log
                try? PosixFile.removeFolder(folder)
            }
        }  // sealed here
        try? PosixFile.removeFolder(entries)
        return adopted
    }
}
