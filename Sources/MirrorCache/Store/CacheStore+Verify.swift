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
                intact = hasIntactBody(entry)
                checked[entry.digest] = intact
            }
            if intact { continue }
            bad.append(entry.id)
            if PosixFile.exists(bodyPath(entry.digest)) {
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
            for path in orphans { try? PosixFile.remove(path) }
            for path in temporary.files() { try? PosixFile.remove(path) }
            report.repaired = true
        }
        return report
    }

    /// Opens the cache in `directory` for repair: a damaged index is moved aside and a new
    /// one rebuilt from the entry log, then every entry is verified and fixed.
    public static func repair(directory: String, configuration: Configuration = Configuration()) throws -> VerifyReport {
        var damagedIndex: String?
        let indexPath = directory + "/index.sqlite"
        do {
            _ = try openIndex(indexPath)
        } catch let error as CacheError where error.code == .corruptIndex {
            damagedIndex = error.detail
            let aside = indexPath + ".damaged-\(Int(Date().timeIntervalSince1970))"
            try? PosixFile.rename(indexPath, to: aside)
            for suffix in ["-wal", "-shm"] { try? PosixFile.remove(indexPath + suffix) }
        }
        let store = try CacheStore(directory: directory, configuration: configuration)
        var report = try store.verify(repair: true)
        if let damagedIndex {
            report.indexProblems.insert("index unreadable (\(damagedIndex)); rebuilt from the entry log", at: 0)
            report.rebuiltEntries = report.entriesChecked
        }
        return report
    }

    /// Whether `entry`'s body file is there, of its size and digest.
    func hasIntactBody(_ entry: CacheEntry) -> Bool {
        let path = bodyPath(entry.digest)
        return PosixFile.size(atPath: path) == entry.size
            && BodyFile(path: path, size: entry.size, digest: entry.digest, isTemporary: false).isIntact()
    }
}
