import MirrorCompression
import MirrorCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files of a ZIP archive (a WACZ), as `mirror cache import` reads them: the central
/// directory lists them, and a file's bytes are read in place, stored as they are or inflated,
/// never more than the directory declares. ZIPFoundation writes our packages but does not read
/// them: on Linux its inflating reads on past an entry's compressed bytes, spins forever at the
/// end of the file when a deflate stream does not end (weichsel/ZIPFoundation#389, open), and
/// hands out whatever a stream inflates to, whatever size the entry declares.
final class ZIPReader {
    struct Entry {
        /// The name as the directory has it, as UTF-8 (other bytes replaced).
        let path: String
        /// 0 stored, 8 deflated; reading refuses any other.
        let method: Int
        let isEncrypted: Bool
        let compressedSize: Int
        /// What the directory declares: reading gives exactly this many bytes, or fails.
        let size: Int
        /// Where the entry's local header is in the file.
        let headerOffset: Int

        var isDirectory: Bool { path.hasSuffix("/") }
    }

    /// Why an entry's bytes cannot be read.
    struct Damaged: Error, CustomStringConvertible {
        let description: String
    }

    let path: String
    private(set) var entries: [Entry] = []
    private let descriptor: Int32
    private let fileSize: Int

    /// Opens the archive at `path` and reads its central directory.
    /// - Throws: `ArchiveError.io` when it cannot be read, `.notAnArchive` when it is no ZIP.
    init(path: String) throws {
        self.path = path
        do { descriptor = try PosixFile.open(path, flags: O_RDONLY) } catch { throw ArchiveError.io(path: path, message: error.message) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            close(descriptor)
            throw ArchiveError.io(path: path, message: "cannot read the file")
        }
        fileSize = Int(info.st_size)
        // A throw from here on closes the descriptor (in `deinit`).
        do {
            entries = try readDirectory()
        } catch let error as Damaged {
            throw ArchiveError.notAnArchive(path: path, reason: "the ZIP cannot be read (\(error))")
        } catch let error as FileSystemError {
            throw ArchiveError.io(path: path, message: error.message)
        }
    }

    deinit { close(descriptor) }

    /// Hands the bytes of `entry` to `body`, in order, in chunks of at most `chunkSize`.
    /// - Throws: `Damaged` when they cannot be read whole, or what `body` throws.
    func read(_ entry: Entry, chunkSize: Int = 1 << 20, _ body: ([UInt8]) throws -> Void) throws {
        let header = try bytes(at: entry.headerOffset, count: 30)
        guard Self.number(header, at: 0, width: 4) == 0x0403_4B50,
            let nameLength = Self.number(header, at: 26, width: 2), let extraLength = Self.number(header, at: 28, width: 2)
        else { throw Damaged(description: "no local header at byte \(entry.headerOffset)") }
        let start = entry.headerOffset + 30 + nameLength + extraLength
        guard entry.compressedSize <= fileSize, start <= fileSize - entry.compressedSize else {
            throw Damaged(description: "its \(entry.compressedSize) bytes run past the end of the file")
        }
        guard !entry.isEncrypted else { throw Damaged(description: "it is encrypted") }
        switch entry.method {
        case 0:
            guard entry.compressedSize == entry.size else {
                throw Damaged(description: "it is stored, yet its \(entry.compressedSize) bytes are said to hold \(entry.size)")
            }
            var offset = 0
            while offset < entry.size {
                let count = min(chunkSize, entry.size - offset)
                try body(try bytes(at: start + offset, count: count))
                offset += count
            }
        case 8:
            guard entry.size > 0 else { return }
            let end = start + entry.compressedSize
            let (descriptor, path) = (descriptor, path)
            do {
                let point = GzipAccessPoint(compressedOffset: start, bitCount: 0, uncompressedOffset: 0, window: [])
                // The range ends at the declared size: nothing past it is inflated.
                let reader = try GzipRangeReader(points: [point], range: 0..<entry.size) { offset, buffer in
                    let count = min(buffer.count, end - offset)
                    guard count > 0 else { return 0 }
                    return try PosixFile.read(
                        descriptor, at: offset, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<count]), path: path)
                }
                while let chunk = try reader.next(maxCount: chunkSize) { try body(chunk) }
            } catch let error as CompressionError {
                throw Damaged(description: "its deflated bytes do not inflate to the \(entry.size) bytes it declares (\(error))")
            }
        default:
            throw Damaged(description: "it is compressed with method \(entry.method), neither stored nor deflated")
        }
    }

    /// The entries the central directory lists, found from the end-of-directory record (and its
    /// ZIP64 form, for an archive of more than 4 GiB or 65,535 entries).
    private func readDirectory() throws -> [Entry] {
        // The record is 22 bytes and a comment of at most 65,535, at the end of the file.
        let tailStart = max(0, fileSize - 22 - 0xFFFF)
        let tail = try bytes(at: tailStart, count: fileSize - tailStart)
        guard
            let end = stride(from: tail.count - 22, through: 0, by: -1).first(where: { at in
                Self.number(tail, at: at, width: 4) == 0x0605_4B50
                    && at + 22 + (Self.number(tail, at: at + 20, width: 2) ?? 0) <= tail.count
            }),
            var count = Self.number(tail, at: end + 10, width: 2), var size = Self.number(tail, at: end + 12, width: 4),
            var offset = Self.number(tail, at: end + 16, width: 4)
        else { throw Damaged(description: "it has no end-of-directory record") }
        if count == 0xFFFF || size == 0xFFFF_FFFF || offset == 0xFFFF_FFFF {
            guard end >= 20, Self.number(tail, at: end - 20, width: 4) == 0x0706_4B50,
                let recordOffset = Self.number(tail, at: end - 12, width: 8)
            else { throw Damaged(description: "it has no ZIP64 end-of-directory locator") }
            let record = try bytes(at: recordOffset, count: 56)
            guard Self.number(record, at: 0, width: 4) == 0x0606_4B50, let count64 = Self.number(record, at: 32, width: 8),
                let size64 = Self.number(record, at: 40, width: 8), let offset64 = Self.number(record, at: 48, width: 8)
            else { throw Damaged(description: "its ZIP64 end-of-directory record is damaged") }
            (count, size, offset) = (count64, size64, offset64)
        }
        let directory = try bytes(at: offset, count: size)
        var entries: [Entry] = []
        var at = 0
        while entries.count < count {
            guard Self.number(directory, at: at, width: 4) == 0x0201_4B50, let flags = Self.number(directory, at: at + 8, width: 2),
                let method = Self.number(directory, at: at + 10, width: 2),
                var compressedSize = Self.number(directory, at: at + 20, width: 4),
                var size = Self.number(directory, at: at + 24, width: 4), let nameLength = Self.number(directory, at: at + 28, width: 2),
                let extraLength = Self.number(directory, at: at + 30, width: 2),
                let commentLength = Self.number(directory, at: at + 32, width: 2),
                var headerOffset = Self.number(directory, at: at + 42, width: 4),
                at + 46 + nameLength + extraLength + commentLength <= directory.count
            else { throw Damaged(description: "its directory is damaged at entry \(entries.count + 1)") }
            // A ZIP64 extra field holds, in this order, the 64-bit values of the fields that say 0xFFFFFFFF.
            var extra = at + 46 + nameLength
            while extra + 4 <= at + 46 + nameLength + extraLength, let id = Self.number(directory, at: extra, width: 2),
                let length = Self.number(directory, at: extra + 2, width: 2)
            {
                if id == 1 {
                    var field = extra + 4
                    func widened(_ value: Int) throws -> Int {
                        guard value == 0xFFFF_FFFF else { return value }
                        guard field + 8 <= extra + 4 + length, let wide = Self.number(directory, at: field, width: 8) else {
                            throw Damaged(description: "the ZIP64 field of entry \(entries.count + 1) is damaged")
                        }
                        field += 8
                        return wide
                    }
                    size = try widened(size)
                    compressedSize = try widened(compressedSize)
                    headerOffset = try widened(headerOffset)
                }
                extra += 4 + length
            }
            let name = directory[(at + 46)..<(at + 46 + nameLength)]
            entries.append(
                Entry(
                    path: String(decoding: name, as: UTF8.self), method: method, isEncrypted: flags & 1 != 0,
                    compressedSize: compressedSize, size: size, headerOffset: headerOffset))
            at += 46 + nameLength + extraLength + commentLength
        }
        return entries
    }

    /// The `count` bytes at `offset`.
    /// - Throws: `Damaged` when the file ends before them.
    private func bytes(at offset: Int, count: Int) throws -> [UInt8] {
        guard offset >= 0, count >= 0, count <= fileSize, offset <= fileSize - count else {
            throw Damaged(description: "it is shorter than its directory says (\(count) bytes at byte \(offset))")
        }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = try bytes.withUnsafeMutableBytes { buffer in
                try PosixFile.read(
                    descriptor, at: offset + filled, into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]), path: path)
            }
            guard got > 0 else { throw Damaged(description: "it ended while it was read") }
            filled += got
        }
        return bytes
    }

    /// The little-endian number of `width` bytes at `at`; nil past the end, or above `Int.max`.
    private static func number(_ bytes: [UInt8], at: Int, width: Int) -> Int? {
        guard at >= 0, at + width <= bytes.count else { return nil }
        let value = bytes[at..<(at + width)].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return value <= UInt64(Int.max) ? Int(value) : nil
    }
}
