#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MirrorCore

/// The metadata of the entries a store has in place (body renamed, metadata file written) whose
/// rows have not committed yet (group commit), each record its length (4 bytes, little-endian)
/// then `EntryFile`'s bytes, in a file of `pending/` that the store holds under an exclusive
/// `flock` while it is open. A kill releases the lock and leaves the file: the next store to
/// open the folder finds it (`abandoned(in:)`), indexes those entries and removes it, so a kill
/// loses no stored response, only its group's commit. The records, not the metadata files: a
/// later store of the same URL rewrites its metadata file in place, and a kill in the middle
/// of that leaves neither version readable (a kill test lost responses so). One `write` per
/// entry, no file per entry.
final class PendingLog {
    let path: String
    private let descriptor: Int32

    /// Creates this store's log in `folder` (made if needed), locked. It appears under its
    /// final name only once locked, so no other store can take it for a dead writer's.
    init(folder: String) throws(CacheError) {
        try PosixIO.makeDirectory(folder)
        while true {
            let name = "\(folder)/\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
            let descriptor = try PosixIO.open(name + ".new", flags: O_WRONLY | O_CREAT | O_EXCL | O_APPEND)
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0, rename(name + ".new", name) == 0 else {
                close(descriptor)  // another store removed it as abandoned, between open and lock
                continue
            }
            path = name
            self.descriptor = descriptor
            return
        }
    }

    /// Closed with nothing pending (the store committed its group first): the file goes.
    deinit {
        unlink(path)
        close(descriptor)
    }

    func append(_ metadata: [UInt8]) throws(CacheError) {
        let count = UInt32(metadata.count)
        let record = [UInt8(count & 0xff), UInt8(count >> 8 & 0xff), UInt8(count >> 16 & 0xff), UInt8(count >> 24)] + metadata
        let failure = record.withUnsafeBytes { bytes -> CacheError? in
            do throws(CacheError) { try PosixIO.writeAll(descriptor, bytes, path: path) } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }

    /// Empties the log once its entries' rows have committed.
    func clear() throws(CacheError) {
        guard ftruncate(descriptor, 0) == 0 else { throw .io(path: path, message: PosixIO.errorMessage()) }
    }

    /// The logs in `folder` whose store is gone (killed, or crashed): each path and the metadata
    /// records it holds, oldest first (a record cut short by the kill is left out). The caller
    /// indexes those entries, then removes the file.
    static func abandoned(in folder: String) -> [(path: String, records: [[UInt8]])] {
        var logs: [(path: String, records: [[UInt8]])] = []
        FolderListing.forEachName(in: folder) { name in
            let path = "\(folder)/\(name)"
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return }
            defer { close(descriptor) }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return }  // its store is open
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 64 << 10)
            while true {
                let got = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
                if got <= 0 { break }
                bytes += buffer[..<got]
            }
            var records: [[UInt8]] = []
            var offset = 0
            while offset + 4 <= bytes.count {
                let count = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3]) << 24
                guard offset + 4 + count <= bytes.count else { break }
                records.append(Array(bytes[offset + 4 ..< offset + 4 + count]))
                offset += 4 + count
            }
            logs.append((path, records))
        }
        return logs
    }
}
