import Crypto
import Foundation
import MirrorCompression
import MirrorCore
import MirrorSite

/// Packs a mirror folder into a bundle: a POSIX pax `.tar.gz` holding exactly the files its
/// manifest describes — the manifest first, then every directory and file in byte order of
/// their paths — compressed on every core as independent gzip members.
///
/// Reproducible: entries are sorted and carry fixed times, owners and modes, and the gzip
/// members are cut where the tar stream alone says (every 1 MiB, every 64 KiB inside the search
/// index, and before a file once a member holds 64 KiB), so the same folder always packs to the
/// same bytes.
/// Each file is checked against the manifest's digest while it is read; the bundle is
/// written to a temporary file and renamed, so a failed pack leaves nothing behind.
public struct BundlePacker {
    public struct Options: Sendable {
        /// zlib level, 1 (fastest) to 9 (smallest).
        public var level: Int32 = 6
        /// Members compressed at once; defaults to the number of cores.
        public var parallelism = ProcessInfo.processInfo.activeProcessorCount

        public init() {}
    }

    public struct Summary: Sendable {
        public var files = 0
        /// Bytes of the files packed.
        public var contentBytes = 0
        public var bundleBytes = 0
        /// SHA-256 of the bundle, to compare bundles in CI.
        public var sha256 = ""
    }

    public let options: Options

    /// A new gzip member starts right before a file's header once the member being filled holds
    /// this much, so a reader (`BundleArchive`) can start inflating at most files without first
    /// inflating the files before them. Deflate only looks 32 KiB back, so a member of 64 KiB
    /// or more loses little ratio to the restart (measured in BENCHMARKS.md); members still end
    /// every 1 MiB inside large files, and the cuts depend on the folder alone (reproducible).
    static let memberAtFile = 64 << 10
    /// The most a gzip member holds.
    static let memberSize = 1 << 20
    /// The most a member holds inside the search index: a query reads a few dozen of its pages
    /// in place (`SeekableBundle.reader(of:)`), inflating only the members that hold them.
    static let indexMemberSize = 64 << 10

    public init(options: Options = Options()) {
        self.options = options
    }

    /// Packs `folder` into the bundle file `output`.
    @discardableResult
    public func pack(folder: String, to output: String) throws -> Summary {
        let manifestFile = folder + "/" + ManifestCheck.manifestPath
        guard let manifestData = FileManager.default.contents(atPath: manifestFile) else {
            throw BundleError.notAMirrorFolder(path: folder, reason: "no \(ManifestCheck.manifestPath)")
        }
        let manifest: SiteManifest
        do {
            manifest = try ManifestCheck.decode(Array(manifestData))
        } catch let error as BundleError {
            throw BundleError.notAMirrorFolder(path: folder, reason: "\(error)")
        }
        let files = manifest.files
        var summary = Summary()
        let outputURL = URL(fileURLWithPath: output)
        let prefix = ".\(outputURL.lastPathComponent).partial-"
        AbandonedFiles.remove(in: outputURL.deletingLastPathComponent().path, prefix: prefix)
        let temporary = "\(outputURL.deletingLastPathComponent().path)/\(prefix)\(ProcessInfo.processInfo.processIdentifier)"
        let sink = try OutputFile(path: temporary)
        do {
            var bundleHash = SHA256()
            var seekTable = BundleSeekTable()
            var membersEnd = 0
            let emit = { (bytes: [UInt8]) throws in
                bundleHash.update(data: bytes)
                try sink.append(bytes)
                summary.bundleBytes += bytes.count
            }
            let gzip = ParallelGzipEncoder(level: options.level, memberSize: Self.memberSize, parallelism: options.parallelism) { member in
                // One member per call; its size inflated is its trailer's last four bytes (members are small).
                seekTable.members.append(
                    .init(
                        start: summary.bundleBytes, tarOffset: membersEnd,
                        sha256: Array(SHA256.hash(data: member))))
                membersEnd += member.suffix(4).reversed().reduce(0) { $0 << 8 | Int($1) }
                try emit(member)
            }
            var tar = TarWriter()
            var buffer: [UInt8] = []
            /// Bytes of the tar stream handed to the encoder.
            var sent = 0
            let send = { (buffer: inout [UInt8]) throws in
                try gzip.write(buffer)
                sent += buffer.count
                buffer.removeAll(keepingCapacity: true)
            }
            let drain = { (buffer: inout [UInt8]) throws in
                if buffer.count >= 1 << 20 { try send(&buffer) }
            }
            try tar.appendDirectory(path: ".mirror", to: &buffer)
            try tar.appendFileHeader(path: ManifestCheck.manifestPath, size: Int64(manifestData.count), to: &buffer)
            seekTable.files.append(
                (
                    ManifestCheck.manifestPath, sent + buffer.count..<sent + buffer.count + manifestData.count,
                    Array(SHA256.hash(data: manifestData))
                ))
            try Array(manifestData).withUnsafeBytes { try tar.appendFileData($0, to: &buffer) }
            try tar.endFile(to: &buffer)
            for path in Self.order(files: files.keys) {
                if path.hasSuffix("/") {
                    if path != ".mirror/" { try tar.appendDirectory(path: String(path.dropLast()), to: &buffer) }
                } else if path != ManifestCheck.manifestPath, let digest = files[path] {
                    try send(&buffer)
                    try gzip.endMember(ifAtLeast: Self.memberAtFile)
                    let isIndex = path == SiteManifest.searchIndexPath
                    if isIndex { gzip.memberSize = Self.indexMemberSize }
                    try copy(folder: folder, path: path, digest: digest, into: &tar, buffer: &buffer, drain: drain) { start in
                        seekTable.files.append((path, sent + start..<sent + start + digest.size, Hex.bytes(digest.sha256) ?? []))
                    }
                    if isIndex {
                        try send(&buffer)
                        gzip.memberSize = Self.memberSize
                    }
                    summary.files += 1
                    summary.contentBytes += digest.size
                }
                try drain(&buffer)
            }
            tar.finish(to: &buffer)
            try send(&buffer)
            try gzip.finish()
            seekTable.archiveEnd = summary.bundleBytes
            try emit(seekTable.encoded())
            try sink.finish()
            summary.sha256 = Hex.string(bundleHash.finalize())
            do { try PosixFile.rename(temporary, to: output) } catch { throw BundleError.io(error) }
        } catch {
            try? sink.finish()
            try? PosixFile.remove(temporary)
            throw error
        }
        return summary
    }

    /// Every file and every folder above one (with a trailing "/"), in byte order of the
    /// paths: a folder comes right before what it holds.
    static func order(files: some Sequence<String>) -> [String] {
        var entries = Set<String>()
        for path in files {
            entries.insert(path)
            var folder = Substring(path)
            while let slash = folder.lastIndex(of: "/") {
                folder = folder[..<slash]
                guard entries.insert(folder + "/").inserted else { break }
            }
        }
        return entries.sorted { $0.bytesPrecede($1) }
    }

    /// Streams one file into the archive, checking its size and digest against the manifest;
    /// `dataStart` hears where its bytes start in `buffer`.
    private func copy(
        folder: String, path: String, digest: SiteManifest.FileDigest, into tar: inout TarWriter,
        buffer: inout [UInt8], drain: (inout [UInt8]) throws -> Void, dataStart: (Int) -> Void
    ) throws {
        let input = try InputFile(path: folder + "/" + path, missing: .missingFile(path: path))
        guard input.size == digest.size else { throw BundleError.digestMismatch(path: path) }
        try tar.appendFileHeader(path: path, size: Int64(digest.size), to: &buffer)
        dataStart(buffer.count)
        var hasher = SHA256()
        var remaining = digest.size
        try input.readChunks { chunk in
            guard chunk.count <= remaining else { throw BundleError.digestMismatch(path: path) }
            remaining -= chunk.count
            hasher.update(bufferPointer: chunk)
            try tar.appendFileData(chunk, to: &buffer)
            try drain(&buffer)
        }
        guard remaining == 0, Hex.string(hasher.finalize()) == digest.sha256 else {
            throw BundleError.digestMismatch(path: path)
        }
        try tar.endFile(to: &buffer)
    }
}
