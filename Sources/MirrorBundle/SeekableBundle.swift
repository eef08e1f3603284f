import Crypto
import Dispatch
import Foundation
public import MirrorCompression
import MirrorCore
import Synchronization

/// A bundle `mirror pack` made, read through its seek table (`BundleSeekTable`) alone: opening
/// reads the table at its end, and reading a file inflates from the gzip member it starts in.
/// It is how `mirror search` reads a bundle's index and the pages of some results in
/// milliseconds, where `BundleArchive` checks every byte first. Every file read is checked
/// against the table's SHA-256 of it; nothing else is.
public final class SeekableBundle: BundleReading {
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
    /// A file over several gzip members is inflated on every core, a run of members each.
    public func verifiedContents(of path: String) throws -> [UInt8]? {
        guard let file = files[path] else { return nil }
        let parts = self.parts(of: file.range)
        let failure = Mutex<(any Error)?>(nil)
        let bytes = [UInt8](unsafeUninitializedCapacity: file.range.count) { buffer, initialized in
            // The parts are disjoint slices of the one buffer.
            nonisolated(unsafe) let whole = UnsafeMutableRawBufferPointer(buffer)
            DispatchQueue.concurrentPerform(iterations: parts.count) { index in
                let part = parts[index]
                let slice = UnsafeMutableRawBufferPointer(rebasing: whole[part.lowerBound - file.range.lowerBound..<part.upperBound - file.range.lowerBound])
                do {
                    try BundleArchive.reading(path) {
                        try GzipRangeReader(points: points, range: part, source: input.readBytes).read(into: slice)
                    }
                } catch {
                    failure.withLock { $0 = $0 ?? error }
                }
            }
            initialized = file.range.count
        }
        if let error = failure.withLock({ $0 }) { throw error }
        guard bytes.count == file.range.count, Array(SHA256.hash(data: bytes)) == file.sha256 else {
            throw BundleError.digestMismatch(path: path)
        }
        return bytes
    }

    /// `range` cut where gzip members start, into as many runs of members as there are cores.
    private func parts(of range: Range<Int>) -> [Range<Int>] {
        let starts = points.lazy.map(\.uncompressedOffset).filter { range.lowerBound < $0 && $0 < range.upperBound }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        guard !starts.isEmpty, cores > 1 else { return [range] }
        let target = range.count / cores
        var parts: [Range<Int>] = []
        var start = range.lowerBound
        for cut in starts where cut - start >= target && parts.count < cores - 1 {
            parts.append(start..<cut)
            start = cut
        }
        return parts + [start..<range.upperBound]
    }
}
