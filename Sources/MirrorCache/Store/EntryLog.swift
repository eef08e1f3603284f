import MirrorCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The cache's entry log: the metadata of every entry a store writes, appended to a segment of
/// `log/` as the entry is stored, before its index row commits. It is how a lost index is
/// rebuilt, and how a killed writer's last group of entries (stored, not yet committed) reaches
/// the index. One `write` per entry: a file per entry was a third of a crawl's file creations.
///
/// A segment is `log/<pid>-<n>.open` while its store holds it under an exclusive `flock`, and
/// `log/<pid>-<n>.log` once sealed (its store let go with every record committed). Records are
/// each a length (4 bytes, little-endian) and a `LogRecord`. A `committed` record names the
/// offset before which every record is in the index: a group commits outside the segment's lock,
/// while later records are appended, so the records between that offset and the marker are not
/// committed. It is written lazily, before the next record or at the seal, so a commit costs no
/// write of its own. A kill releases the lock and leaves the segment open: the next store to open
/// the folder indexes the records from its last `committed` offset on (`abandoned(in:)`) and seals
/// it. A record a kill cut short is left out.
///
/// Not thread-safe: `IndexWriter` uses its segment under its group's lock (hence `@unchecked
/// Sendable`, as `CacheIndex`).
final class EntryLog: @unchecked Sendable {
    let path: String
    private let descriptor: Int32
    /// Where the segment's records end, its length (each append ends with a record other than a
    /// `committed` one): what a group taken now commits through (`markCommitted(through:)`).
    private(set) var recordsEnd = 0
    /// Every record before this offset is in the index…
    private var committedThrough = 0
    /// …and the last `committed` record written says so up to here: when less, one is owed.
    private var markedThrough = 0

    private var isEmpty: Bool { recordsEnd == 0 }
    /// Records not committed yet: the segment may not be sealed.
    private var hasUncommitted: Bool { committedThrough < recordsEnd }

    static let openSuffix = ".open"
    static let sealedSuffix = ".log"

    /// Creates a segment in `folder` (made if needed), locked. It appears under its name only
    /// once locked, so no other store can take it for a dead writer's.
    init(folder: String) throws(CacheError) {
        do { try PosixFile.makeFolder(folder) } catch { throw .io(error) }
        while true {
            let name = "\(folder)/\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
            let descriptor: Int32
            do { descriptor = try PosixFile.open(name + ".new", flags: O_WRONLY | O_CREAT | O_EXCL | O_APPEND) } catch { throw .io(error) }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0, (try? PosixFile.rename(name + ".new", to: name + Self.openSuffix)) != nil
            else {
                close(descriptor)  // another store removed it as abandoned, between open and lock
                continue
            }
            path = name + Self.openSuffix
            self.descriptor = descriptor
            return
        }
    }

    /// Sealed when every record committed; left open, for the next store to index, when not.
    deinit {
        if isEmpty {
            try? PosixFile.remove(path)
        } else if !hasUncommitted {
            if markedThrough < committedThrough { try? write(Self.frame(LogRecord.committed(through: committedThrough).bytes)) }
            Self.seal(path)
        }
        close(descriptor)
    }

    /// Appends records (each `LogRecord.bytes`) in one write.
    func append(_ records: [[UInt8]]) throws(CacheError) {
        guard !records.isEmpty else { return }
        var bytes: [UInt8] = markedThrough < committedThrough ? Self.frame(LogRecord.committed(through: committedThrough).bytes) : []
        for record in records { bytes += Self.frame(record) }
        do { try write(bytes) } catch {
            // Records written in part (a full disk) are taken back: the offsets stay the file's,
            // and the records appended later stay readable.
            _ = ftruncate(descriptor, off_t(recordsEnd))
            throw error
        }
        markedThrough = committedThrough
        recordsEnd += bytes.count
    }

    /// Every record before `offset` (a `recordsEnd` taken earlier) has committed to the index.
    func markCommitted(through offset: Int) {
        committedThrough = max(committedThrough, offset)
    }

    /// Everything appended so far has committed to the index.
    func markCommitted() {
        markCommitted(through: recordsEnd)
    }

    /// Empties the segment (its records are all in a compacted segment, or cleared).
    func truncate() throws(CacheError) {
        guard ftruncate(descriptor, 0) == 0 else { throw .io(FileSystemError(path: path, code: errno)) }
        recordsEnd = 0
        committedThrough = 0
        markedThrough = 0
    }

    private func write(_ bytes: [UInt8]) throws(CacheError) {
        do { try PosixFile.writeAll(descriptor, bytes, path: path) } catch { throw .io(error) }
    }

    private static func frame(_ record: [UInt8]) -> [UInt8] {
        let count = UInt32(record.count)
        return [UInt8(count & 0xff), UInt8(count >> 8 & 0xff), UInt8(count >> 16 & 0xff), UInt8(count >> 24)] + record
    }

    // MARK: Reading

    /// The open segments in `folder` whose store is gone (killed, or crashed): each path and the
    /// records its last `committed` does not cover, oldest first. The caller indexes them, then
    /// seals the segment (`seal`).
    static func abandoned(in folder: String) -> [(path: String, records: [LogRecord])] {
        var logs: [(path: String, records: [LogRecord])] = []
        FolderListing.forEachName(in: folder) { name in
            guard name.hasSuffix(openSuffix) else { return }
            let path = "\(folder)/\(name)"
            guard let descriptor = try? PosixFile.open(path, flags: O_RDONLY) else { return }
            defer { close(descriptor) }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0, let bytes = contents(of: path) else { return }  // its store is open
            // Only the records the last `committed` does not cover are decoded: a crawl killed half
            // way through 100,000 pages left 50,000 records, and decoding them all doubled the time
            // a `--resume` took to its first request.
            let frames = frames(bytes)
            let magic = Array(LogRecord.committedMagic.utf8)
            var from = 0
            if let last = frames.lastIndex(where: { bytes[$0].starts(with: magic) }),
                case .committed(let through) = LogRecord(bytes[frames[last]])
            {
                from = through ?? frames[last].lowerBound  // an older marker: the records after it
            }
            let records = frames.filter { $0.lowerBound - 4 >= from && !bytes[$0].starts(with: magic) }
                .compactMap { LogRecord(bytes[$0]) }
            logs.append((path, records))
        }
        return logs
    }

    /// Calls `body` with every record of every segment in `folder`, open or sealed.
    static func forEachRecord(in folder: String, _ body: (LogRecord) -> Void) {
        for path in segments(in: folder) {
            guard let bytes = contents(of: path) else { continue }
            for frame in frames(bytes) {
                if let record = LogRecord(bytes[frame]) { body(record) }
            }
        }
    }

    /// The paths of the segments in `folder`; with `sealedOnly`, only the sealed ones.
    static func segments(in folder: String, sealedOnly: Bool = false) -> [String] {
        FolderListing.names(in: folder)
            .filter { $0.hasSuffix(sealedSuffix) || (!sealedOnly && $0.hasSuffix(openSuffix)) }
            .map { "\(folder)/\($0)" }
    }

    /// Renames an open segment to its sealed name.
    static func seal(_ path: String) {
        guard path.hasSuffix(openSuffix) else { return }
        try? PosixFile.rename(path, to: String(path.dropLast(openSuffix.count)) + sealedSuffix)
    }

    /// A segment's bytes; nil when it cannot be read (gone: sealed or removed meanwhile).
    private static func contents(of path: String) -> [UInt8]? {
        (try? FileReading.contents(of: path)) ?? nil
    }

    /// Where each whole record of a segment's bytes is (one cut short at the end is left out).
    private static func frames(_ bytes: [UInt8]) -> [Range<Int>] {
        var frames: [Range<Int>] = []
        var offset = 0
        while offset + 4 <= bytes.count {
            let count = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3]) << 24
            guard offset + 4 + count <= bytes.count else { break }
            frames.append(offset + 4..<offset + 4 + count)
            offset += 4 + count
        }
        return frames
    }
}
