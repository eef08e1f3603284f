import Crypto
import Dispatch
import Foundation
import MirrorCompression
import MirrorCore
import MirrorLock

/// A bundle `mirror pack` made, read through its seek table (`BundleSeekTable`) alone: opening
/// reads the table at its end, and reading inflates only the gzip members that hold the bytes
/// wanted. It is how `mirror search` queries a bundle's index in place and reads the pages of
/// some results in milliseconds, where `BundleArchive` checks every byte first. Every member
/// read is checked against the table's SHA-256 of it, and a file read whole against its own.
public final class SeekableBundle: Sendable {
    public let path: String
    private let input: InputFile
    private let table: BundleSeekTable
    private let files: [String: (range: Range<Int>, sha256: [UInt8])]

    private init(path: String, input: InputFile, table: BundleSeekTable) {
        self.path = path
        self.input = input
        self.table = table
        var files: [String: (range: Range<Int>, sha256: [UInt8])] = [:]
        for file in table.files { files[file.path] = (file.range, file.sha256) }
        self.files = files
    }

    /// Opens the bundle at `path`; nil when it has no seek table (another tool made it, or its
    /// end is damaged).
    public static func open(path: String) throws -> SeekableBundle? {
        let input = try InputFile(path: path, missing: .io(path: path, message: "no such file"))
        return BundleSeekTable.read(input).map { SeekableBundle(path: path, input: input, table: $0) }
    }

    /// The whole of the file at `path` (relative, as the manifest lists it), checked against its
    /// SHA-256; nil when the bundle has no such file. Its members are inflated on every core.
    public func verifiedContents(of path: String) throws -> [UInt8]? {
        guard let file = files[path] else { return nil }
        let members = self.members(overlapping: file.range)
        let failure = Locked<(any Error)?>(nil)
        let bytes = [UInt8](unsafeUninitializedCapacity: file.range.count) { buffer, initialized in
            // Each member fills its own slice of the one buffer.
            nonisolated(unsafe) let whole = UnsafeMutableRawBufferPointer(buffer)
            DispatchQueue.concurrentPerform(iterations: members.count) { index in
                let part = tarRange(ofMember: members[index]).clamped(to: file.range)
                let slice = UnsafeMutableRawBufferPointer(
                    rebasing: whole[part.lowerBound - file.range.lowerBound..<part.upperBound - file.range.lowerBound])
                do {
                    try inflate(member: members[index], range: part, into: slice)
                } catch {
                    failure.withLock { $0 = $0 ?? error }
                }
            }
            initialized = file.range.count
        }
        if let error = failure.withLock({ $0 }) { throw error }
        guard Array(SHA256.hash(data: bytes)) == file.sha256 else { throw BundleError.digestMismatch(path: path) }
        return bytes
    }

    /// A reader of parts of the file at `path`, for reading it in place (a database queried page
    /// by page); nil when the bundle has no such file.
    public func reader(of path: String) -> BundleFileReader? {
        files[path].map { BundleFileReader(bundle: self, path: path, range: $0.range) }
    }

    /// Inflates the bytes `range` of the tar stream, which member `index` holds, into `buffer`,
    /// after checking the member's compressed bytes against the table.
    func inflate(member index: Int, range: Range<Int>, into buffer: UnsafeMutableRawBufferPointer) throws {
        let compressed = table.compressedRange(ofMember: index)
        guard let bytes = input.bytes(at: compressed.lowerBound, count: compressed.count) else {
            throw BundleError.corrupt("it ends inside the gzip member at byte \(compressed.lowerBound)")
        }
        guard Array(SHA256.hash(data: bytes)) == table.members[index].sha256 else {
            throw BundleError.corrupt("the gzip member at byte \(compressed.lowerBound) does not match its seek table")
        }
        let start = table.members[index].tarOffset
        let point = GzipAccessPoint(compressedOffset: BundleSeekTable.headerLength(bytes), bitCount: 0, uncompressedOffset: 0, window: [])
        try BundleArchive.reading(path) {
            try GzipRangeReader(points: [point], range: range.lowerBound - start..<range.upperBound - start) { offset, buffer in
                let count = max(0, min(buffer.count, bytes.count - offset))
                guard count > 0 else { return 0 }
                bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + count])) }
                return count
            }.read(into: buffer)
        }
    }

    /// The members that hold bytes of `range` of the tar stream, in order.
    func members(overlapping range: Range<Int>) -> [Int] {
        let members = table.members
        var low = 0
        var high = members.count
        while high - low > 1 {
            let middle = (low + high) / 2
            if members[middle].tarOffset <= range.lowerBound { low = middle } else { high = middle }
        }
        var found = [low]
        while let next = found.last.map({ $0 + 1 }), next < members.count, members[next].tarOffset < range.upperBound { found.append(next) }
        return found
    }

    /// The bytes of the tar stream member `index` holds; the last one's end is not in the table,
    /// and reaches as far as any read may.
    func tarRange(ofMember index: Int) -> Range<Int> {
        table.members[index].tarOffset..<(index + 1 < table.members.count ? table.members[index + 1].tarOffset : Int.max)
    }
}
