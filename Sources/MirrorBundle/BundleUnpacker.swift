import Crypto
import Foundation
import MirrorCore
public import MirrorSite

/// Reads a bundle as it streams from disk — gzip, then tar — checking every entry: the tar
/// layer refuses unsafe paths, links, devices, duplicates and sizes over the limits, and
/// every file must match the manifest's digest. Memory does not grow with the bundle.
///
/// Unpacking writes into a temporary folder beside the destination and renames it at the
/// end, so a refused or damaged bundle leaves nothing behind.
public struct BundleUnpacker {
    public struct Summary: Sendable {
        public var files = 0
        public var bytes = 0
        public var manifest = SiteManifest()
    }

    public let limits: TarLimits

    public init(limits: TarLimits = TarLimits()) {
        self.limits = limits
    }

    /// Checks `bundle` without writing anything.
    @discardableResult
    public func check(_ bundle: String) throws -> Summary {
        try read(bundle, into: nil)
    }

    /// Unpacks `bundle` into `destination`, which must not exist or be an empty folder.
    @discardableResult
    public func unpack(_ bundle: String, to destination: String) throws -> Summary {
        let fileManager = FileManager.default
        var isFolder: ObjCBool = false
        let exists = fileManager.fileExists(atPath: destination, isDirectory: &isFolder)
        if exists && !(isFolder.boolValue && ((try? fileManager.contentsOfDirectory(atPath: destination).isEmpty) ?? false)) {
            throw BundleError.destinationExists(destination)
        }
        let url = URL(fileURLWithPath: destination)
        let parent = url.deletingLastPathComponent().path
        let prefix = ".\(url.lastPathComponent).unpacking-"
        AbandonedFiles.remove(in: parent, prefix: prefix)
        let temporary = "\(parent)/\(prefix)\(ProcessInfo.processInfo.processIdentifier)"
        try? fileManager.removeItem(atPath: temporary)
        do {
            try fileManager.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        } catch {
            throw BundleError.io(path: temporary, message: error.localizedDescription)
        }
        do {
            let summary = try read(bundle, into: temporary)
            if exists { rmdir(destination) }
            guard rename(temporary, destination) == 0 else { throw OutputFile.failure(destination) }
            return summary
        } catch {
            try? fileManager.removeItem(atPath: temporary)
            throw error
        }
    }

    private func read(_ bundle: String, into root: String?) throws -> Summary {
        // The tar layer enforces the real limits; this only bounds what the gzip layer may
        // produce around them (headers, padding).
        let stream = try InflatedStream(path: bundle, limit: Int(limits.maxTotalSize) + limits.maxEntryCount * 1536 + (64 << 20))
        defer { stream.cancel() }
        var entries = EntryHandler(root: root)
        var reader = TarReader(limits: limits)
        do {
            while let chunk = try stream.next() {
                try chunk.withUnsafeBytes { try reader.feed($0) { try entries.handle($0) } }
            }
            try reader.finish()
        } catch let error as TarError {
            throw BundleError.unsafeArchive(error)
        }
        return try entries.finish()
    }
}

/// What happens to each entry: its digest checked against the manifest, and (when
/// unpacking) its file written under `root`.
private struct EntryHandler {
    let root: String?
    var check = ManifestCheck()
    var summary = BundleUnpacker.Summary()
    private var current: (path: String, hasher: SHA256, size: Int, file: OutputFile?)?
    private var manifestBytes: [UInt8]?
    private var folders: Set<String> = []

    init(root: String?) {
        self.root = root
    }

    mutating func handle(_ event: TarEvent) throws {
        switch event {
        case .begin(let entry):
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
            if manifestBytes != nil {
                manifestBytes?.append(contentsOf: bytes)
            } else if current != nil {
                current?.hasher.update(bufferPointer: bytes)
                current?.size += bytes.count
                try current?.file?.append(bytes)
            }
        case .end:
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

    private mutating func makeFolder(_ path: String) throws {
        guard let root, folders.insert(path).inserted else { return }
        do {
            try FileManager.default.createDirectory(atPath: root + "/" + path, withIntermediateDirectories: true)
        } catch {
            throw BundleError.io(path: path, message: error.localizedDescription)
        }
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
