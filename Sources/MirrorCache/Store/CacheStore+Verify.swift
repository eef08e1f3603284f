import Crypto
import Foundation
import MirrorCore

extension CacheStore {
    /// Checks every entry's body against its digest, the index's own integrity, and
    /// looks for orphan body files. With `repair`, damaged entries and orphans are removed
    /// and leftover temporary files cleared.
    public func verify(repair: Bool) throws -> VerifyReport {
        var report = VerifyReport()
        report.indexProblems = try withIndex { try $0.integrityProblems() }
        let entries = try allEntries()
        report.entriesChecked = entries.count
        var checked: [String: Bool] = [:]  // digest → intact
        var bad: [String] = []
        for entry in entries {
            let intact: Bool
            if let known = checked[entry.digest] {
                intact = known
            } else {
                intact = Self.bodyIsIntact(path: bodyPath(entry.digest), digest: entry.digest, size: entry.size)
                checked[entry.digest] = intact
            }
            if intact { continue }
            bad.append(entry.id)
            if PosixIO.exists(bodyPath(entry.digest)) {
                report.damagedBodies.append(entry.url)
            } else {
                report.missingBodies.append(entry.url)
            }
        }
        report.bodiesChecked = checked.count
        var orphans: [String] = []
        for folder in FolderListing.names(in: directory + "/bodies") {
            for name in FolderListing.names(in: "\(directory)/bodies/\(folder)") where checked[name] == nil {
                orphans.append("\(directory)/bodies/\(folder)/\(name)")
            }
        }
        report.orphanFiles = orphans.count
        if repair {
            try remove(ids: bad)
            for path in orphans { PosixIO.remove(path) }
            for path in temporary.files() { PosixIO.remove(path) }
            report.repaired = true
        }
        return report
    }

    /// Opens the cache in `directory` for repair: a damaged index is moved aside and a new
    /// one rebuilt from the entries' metadata files, then every entry is verified and fixed.
    public static func repair(directory: String, configuration: Configuration = Configuration()) throws -> VerifyReport {
        var damagedIndex: String?
        let indexPath = directory + "/index.sqlite"
        do {
            _ = try openIndex(indexPath)
        } catch CacheError.corruptIndex(_, let message) {
            damagedIndex = message
            let aside = indexPath + ".damaged-\(Int(Date().timeIntervalSince1970))"
            try? PosixIO.rename(indexPath, aside)
            for suffix in ["-wal", "-shm"] { PosixIO.remove(indexPath + suffix) }
        }
        let store = try CacheStore(directory: directory, configuration: configuration)
        var report = try store.verify(repair: true)
        if let damagedIndex {
            report.indexProblems.insert("index unreadable (\(damagedIndex)); rebuilt from metadata", at: 0)
            report.rebuiltEntries = report.entriesChecked
        }
        return report
    }

    /// Re-creates index rows from the metadata files beside the bodies. Entries whose
    /// body is missing or damaged are skipped. Returns how many entries were recovered.
    func rebuildIndex() throws -> Int {
        var recovered: [CacheEntry] = []
        for folder in FolderListing.names(in: directory + "/entries") {
            for name in FolderListing.names(in: "\(directory)/entries/\(folder)") {
                let path = "\(directory)/entries/\(folder)/\(name)"
                guard let entry = indexableEntry(at: path) else {
                    PosixIO.remove(path)
                    continue
                }
                recovered.append(entry)
            }
        }
        try withIndex { index in
            try index.database.transaction {
                for entry in recovered { _ = try index.upsert(entry) }
            }
        }
        return recovered.count
    }

    /// Indexes the entries that stores killed before their group committed had in place (their
    /// `PendingLog`s hold their metadata), then removes those logs. A record is the latest store
    /// of its URL and variant that the killed store made, so it replaces an older row (a kill test
    /// lost newer responses when any row was kept), and its metadata file is written again from
    /// it. Records whose body is not whole are left out. Returns how many entries got a row or
    /// another body.
    func recoverAbandonedGroups() throws -> Int {
        var recovered = 0
        for log in PendingLog.abandoned(in: pendingFolder) {
            let entries = log.records.compactMap(EntryFile.decode).filter { entry in
                Self.bodyIsIntact(path: bodyPath(entry.digest), digest: entry.digest, size: entry.size)
            }
            let orphans = try withIndex { index in
                try index.database.transaction {
                    for entry in entries where try index.digest(ofEntry: entry.id) != entry.digest { recovered += 1 }
                    return try index.upsert(entries)
                }
            }
            for entry in entries { try writeMetadata(entry) }
            for digest in orphans { PosixIO.remove(bodyPath(digest)) }
            PosixIO.remove(log.path)
        }
        return recovered
    }

    /// The entry a metadata file describes, when the file is whole and its body intact.
    private func indexableEntry(at path: String) -> CacheEntry? {
        guard let size = PosixIO.fileSize(path), size < 1 << 20,
              let bytes = try? PosixIO.readFile(path, expectedSize: size), let entry = EntryFile.decode(bytes),
              Self.bodyIsIntact(path: bodyPath(entry.digest), digest: entry.digest, size: entry.size) else { return nil }
        return entry
    }

    static func bodyIsIntact(path: String, digest: String, size: Int) -> Bool {
        PosixIO.fileSize(path) == size && BodyFile(path: path, size: size, digest: digest, isTemporary: false).isIntact()
    }
}
