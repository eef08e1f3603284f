import Crypto
import Foundation
import MirrorCompression
import MirrorCore
import MirrorSite

/// One streaming pass over a bundle, as `BundleUnpacker` and `BundleArchive` both read it:
/// gzip, then tar (which refuses unsafe entries), every file checked against the manifest's
/// size and SHA-256. When unpacking, each file is also written under a folder; when indexing,
/// where each file's data lies in the tar stream and where inflating can start are noted, so
/// the bundle can be read in place. Memory does not grow with the bundle's bytes.
struct BundleScan {
    var summary: BundleUnpacker.Summary
    /// Where each file's bytes are in the decompressed tar stream (when indexing).
    var locations: [String: Range<Int>]
    /// Where inflating can start (when indexing).
    var accessPoints: [GzipAccessPoint]

    /// Inside a gzip member, an access point every this many bytes of output, so a bundle made
    /// of one member (GNU `tar czf`, or a mirror before 64 KiB cuts) still reads in place.
    static let accessPointSpan = 1 << 20

    /// Reads `input` from its start.
    /// - Parameters:
    ///   - root: the folder to write the files under, or nil to write nothing.
    ///   - indexing: note locations and access points.
    static func run(_ input: InputFile, limits: TarLimits, root: String?, indexing: Bool) throws -> BundleScan {
        // The tar layer enforces the real limits; this only bounds what the gzip layer may
        // produce around them (headers, padding).
        let stream = try InflatedStream(
            input: input, limit: Int(limits.maxTotalSize) + limits.maxEntryCount * 1536 + (64 << 20),
            accessPointSpan: indexing ? accessPointSpan : nil)
        defer { stream.cancel() }
        var entries = EntryHandler(root: root, indexing: indexing)
        var reader = TarReader(limits: limits)
        do {
            var offset = 0
            while let chunk = try stream.next() {
                try chunk.withUnsafeBytes { buffer in
                    try reader.feed(buffer) { try entries.handle($0, in: buffer, at: offset) }
                }
                offset += chunk.count
            }
            try reader.finish()
        } catch let error as TarError {
            throw BundleError.unsafeArchive(error)
        }
        let summary = try entries.finish()
        try BundleSeekTable.check(input, files: summary.manifest.files)
        return BundleScan(summary: summary, locations: entries.locations, accessPoints: indexing ? stream.accessPoints : [])
    }
}

/// What happens to each entry: its digest checked against the manifest, (when unpacking) its
/// file written under `root`, and (when indexing) its location noted.
private struct EntryHandler {
    let root: String?
    let indexing: Bool
    var check = ManifestCheck()
    var summary = BundleUnpacker.Summary()
    var locations: [String: Range<Int>] = [:]
    private var current: (path: String, hasher: SHA256, size: Int, file: OutputFile?)?
    private var manifestBytes: [UInt8]?
    private let folders = FolderMaker()
    /// Offset in the tar stream of the current file's data, once its first bytes came.
    private var dataStart: Int?

    init(root: String?, indexing: Bool) {
        self.root = root
        self.indexing = indexing
    }

    /// Handles one event of the tar reader fed with `chunk`, which starts at `chunkOffset` in the tar stream.
    mutating func handle(_ event: TarEvent, in chunk: UnsafeRawBufferPointer, at chunkOffset: Int) throws {
        switch event {
        case .begin(let entry):
            dataStart = nil
            if entry.kind == .directory {
                try makeFolder(entry.path)
            } else if entry.path == ManifestCheck.manifestPath {
                guard entry.size <= ManifestCheck.manifestLimit else {
                    throw BundleError.notABundle("\(entry.path) is \(entry.size) bytes, too large for a manifest")
                }
                manifestBytes = []
                manifestBytes?.reserveCapacity(Int(entry.size))
            } else {
                try check.begin(entry.path, size: entry.size)
                current = (entry.path, SHA256(), 0, try makeFile(entry.path))
            }
        case .data(let bytes):
            // The reader hands out slices of `chunk`, so their place in it is their place in the stream.
            if indexing && dataStart == nil { dataStart = chunkOffset + (bytes.baseAddress! - chunk.baseAddress!) }
            if manifestBytes != nil {
                manifestBytes?.append(contentsOf: bytes)
            } else if current != nil {
                current?.hasher.update(bufferPointer: bytes)
                current?.size += bytes.count
                try current?.file?.append(bytes)
            }
        case .end(let entry):
            if indexing && entry.kind == .file {
                let start = dataStart ?? 0
                locations[entry.path] = start..<(start + Int(entry.size))
            }
            if let bytes = manifestBytes {
                try check.read(manifest: bytes)
                try write(ManifestCheck.manifestPath, bytes)
                manifestBytes = nil
            } else if let (path, hasher, size, file) = current {
                current = nil
                try file?.finish()
                try check.file(path, SiteManifest.FileDigest(sha256: Hex.string(hasher.finalize()), size: size))
                summary.files += 1
                summary.bytes += size
            }
        }
    }

    mutating func finish() throws -> BundleUnpacker.Summary {
        summary.manifest = try check.finish()
        return summary
    }

    private func makeFolder(_ path: String) throws {
        guard let root else { return }
        do { try folders.make(root + "/" + path) } catch { throw BundleError.io(path: path, message: error.message) }
    }

    private mutating func makeFile(_ path: String) throws -> OutputFile? {
        guard let root else { return nil }
        if let slash = path.lastIndex(of: "/") { try makeFolder(String(path[..<slash])) }
        return try OutputFile(path: root + "/" + path)
    }

    private mutating func write(_ path: String, _ bytes: [UInt8]) throws {
        guard let file = try makeFile(path) else { return }
        try file.append(bytes)
        try file.finish()
    }
}
