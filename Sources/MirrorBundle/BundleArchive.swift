public import MirrorCompression
import MirrorCore
public import MirrorSite

/// A bundle read in place, without unpacking it: what `mirror serve FILE.tar.gz` serves.
///
/// Opening reads the whole bundle once, exactly as `BundleUnpacker.check` does — unsafe paths,
/// links, devices, limits, truncation and corruption are refused, and every file must match the
/// manifest's size and SHA-256, with the same `BundleError`s — so nothing corrupt is ever read
/// from it. Meanwhile it notes where each file's bytes lie in the tar stream and where
/// inflating can start: at every gzip member (`mirror pack` starts one before most files) and
/// every 1 MiB inside larger members (zran-style access points, so one-member bundles made by
/// GNU `tar czf` read in place too). Memory stays flat during the pass; afterwards it holds the
/// manifest, one entry per file, the access points (a compressed 32 KiB window, about 5 KiB on
/// web pages, per MiB of a large member) and the cache.
///
/// Reading a file inflates from the last access point before it, reading the bundle with
/// `pread` into a zlib stream of its own, so any number of threads read at once. Files of up
/// to `cacheCapacity / 16` bytes are read whole and kept in a bounded LRU of `cacheCapacity`
/// bytes, so a hot page is inflated once.
///
/// The bundle must not be changed in place while it is open (mirror replaces a bundle by
/// renaming a new file over it, which an open archive does not see): reads are not checked again.
public final class BundleArchive: Sendable {
    /// A regular file of the bundle.
    public struct File: Sendable, Hashable {
        public let size: Int
        /// Where its bytes lie in the decompressed tar stream.
        let offset: Int
    }

    /// The most bytes a reader hands out at once.
    public static let chunkSize = 256 << 10

    public let path: String
    /// The checked manifest: every file below is listed in it with its size and SHA-256.
    public let manifest: SiteManifest
    /// Every regular file by path: those the manifest lists, and `.mirror/manifest.json`.
    public let files: [String: File]
    /// Where inflating can start, in order; the ones that start a gzip member have no window.
    public let accessPoints: [GzipAccessPoint]
    private let input: InputFile
    private let cache: MemoryTier

    /// Opens, checks and indexes the bundle at `path` (reading all of it once).
    /// - Parameters:
    ///   - limits: as `BundleUnpacker`'s.
    ///   - cacheCapacity: bytes of small files kept inflated in memory.
    /// - Throws: the `BundleError` that `BundleUnpacker` would give.
    public convenience init(path: String, limits: TarLimits = TarLimits(), cacheCapacity: Int = 16 << 20) throws {
        let input = try InputFile(path: path, missing: .io(path: path, message: "no such file"))
        let scan = try BundleScan.run(input, limits: limits, root: nil, indexing: true)
        self.init(
            path: path, input: input, manifest: scan.summary.manifest,
            files: scan.locations.mapValues { File(size: $0.count, offset: $0.lowerBound) }, accessPoints: scan.accessPoints,
            cacheCapacity: cacheCapacity)
    }

    private init(
        path: String, input: InputFile, manifest: SiteManifest, files: [String: File], accessPoints: [GzipAccessPoint],
        cacheCapacity: Int
    ) {
        self.path = path
        self.input = input
        self.manifest = manifest
        self.files = files
        self.accessPoints = accessPoints
        cache = MemoryTier(capacity: cacheCapacity, maxBodySize: cacheCapacity / 16)
    }

    /// The whole of `path`, as opening checked it; nil when the bundle has no such file.
    public func verifiedContents(of path: String) throws -> [UInt8]? {
        guard let file = files[path] else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(file.size)
        return try read(path, { bytes += $0 }) ? bytes : nil
    }

    public func contains(_ path: String) -> Bool { files[path] != nil }

    /// A reader of `path`'s bytes in `range` (the whole file when nil; clamped to the file);
    /// nil when the bundle has no such file. A small file is inflated here, at once.
    public func reader(for path: String, range: Range<Int>? = nil) throws -> Reader? {
        guard let file = files[path] else { return nil }
        let range = (range ?? 0..<file.size).clamped(to: 0..<file.size)
        guard file.size > cache.maxBodySize else {
            return Reader(path: path, range: range, whole: try contents(of: path, file))
        }
        return Reader(
            path: path, range: range, inflating: try inflater(path, file.offset + range.lowerBound..<file.offset + range.upperBound))
    }

    /// Calls `body` with `path`'s bytes in `range` (the whole file when nil; clamped to the
    /// file), in order, in chunks of at most `chunkSize`; returns false when there is no such file.
    @discardableResult
    public func read(_ path: String, range: Range<Int>? = nil, _ body: ([UInt8]) throws -> Void) throws -> Bool {
        guard let reader = try reader(for: path, range: range) else { return false }
        while let chunk = try reader.next() { try body(chunk) }
        return true
    }

    /// A small file's bytes, from the cache or inflated (and then cached).
    private func contents(of path: String, _ file: File) throws -> [UInt8] {
        if let bytes = cache.get(path) { return bytes }
        let bytes = try Self.reading(path) { try inflater(path, file.offset..<file.offset + file.size).next(maxCount: file.size) } ?? []
        cache.put(path, bytes)
        return bytes
    }

    /// Runs `body`, turning zlib's errors into the bundle's, naming the file.
    static func reading<T>(_ path: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as CompressionError {
            throw BundleError.corrupt("\(path): \(error)")
        }
    }

    private func inflater(_ path: String, _ range: Range<Int>) throws -> GzipRangeReader {
        try Self.reading(path) {
            try GzipRangeReader(points: accessPoints, range: range, source: input.readBytes)
        }
    }
}
