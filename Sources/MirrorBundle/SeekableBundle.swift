import Crypto
public import MirrorCompression
import MirrorCore

/// A bundle `mirror pack` made, read through its seek table (`BundleSeekTable`) alone: opening
/// reads the table at its end, and reading a file inflates from the gzip member it starts in.
/// It is how `mirror search` reads a bundle's index and the pages of some results in
/// milliseconds, where `BundleArchive` checks every byte first. Every file read is checked
/// against the table's SHA-256 of it; nothing else is.
public final class SeekableBundle: Sendable {
    public let path: String
    private let input: InputFile
    private let files: [String: (range: Range<Int>, sha256: [UInt8])]
    private let points: [GzipAccessPoint]

    private init(path: String, input: InputFile, table: BundleSeekTable) {
        self.path = path
        self.input = input
        var files: [String: (range: Range<Int>, sha256: [UInt8])] = [:]
        for file in table.files { files[file.path] = (file.range, file.sha256) }
        self.files = files
        points = table.members.map {
            GzipAccessPoint(compressedOffset: $0.compressedOffset, bitCount: 0, uncompressedOffset: $0.tarOffset, window: [])
        }
    }

    /// Opens the bundle at `path`; nil when it has no seek table (another tool made it, or its
    /// end is damaged).
    public static func open(path: String) throws -> SeekableBundle? {
        let input = try InputFile(path: path, missing: .io(path: path, message: "no such file"))
        return BundleSeekTable.read(input).map { SeekableBundle(path: path, input: input, table: $0) }
    }

    public func contains(_ path: String) -> Bool { files[path] != nil }

    /// The whole of the file at `path` (relative, as the manifest lists it), checked against its
    /// SHA-256; nil when the bundle has no such file.
    public func verifiedContents(of path: String) throws -> [UInt8]? {
        guard let file = files[path] else { return nil }
        let bytes = try BundleArchive.reading(path) {
            try GzipRangeReader(points: points, range: file.range) { [input] offset, buffer in
                try input.readBytes(at: offset, into: buffer)
            }.next(maxCount: file.range.count) ?? []
        }
        guard bytes.count == file.range.count, Array(SHA256.hash(data: bytes)) == file.sha256 else {
            throw BundleError.digestMismatch(path: path)
        }
        return bytes
    }
}
