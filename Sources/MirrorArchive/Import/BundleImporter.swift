import Foundation
public import MirrorBundle
public import MirrorCache
public import MirrorSite

/// Reloads a checked mirror folder's original responses into a cache: each saved URL with
/// its status, headers, age and original body (the kept original when its links were
/// rewritten), and each redirect — so a later `--offline` crawl needs no network at all.
/// (`ArchiveImporter` does the same for web archives.)
public struct BundleImporter {
    public let store: CacheStore

    public init(store: CacheStore) {
        self.store = store
    }

    /// Imports every response of `manifest` from `folder`; returns how many entries were stored.
    @discardableResult
    public func importFolder(_ folder: String, manifest: SiteManifest) throws -> Int {
        var count = 0
        for (url, resource) in manifest.resources.sorted(by: { $0.key < $1.key }) {
            let source = resource.file == nil ? resource.path : SiteManifest.originalPath(sha256: resource.sha256)
            let writer = try store.makeBodyWriter()
            try copy(folder + "/" + source, into: writer)
            let entry = try store.store(
                url: url, varyKey: resource.record.varyKey,
                head: Self.head(resource.record, status: resource.status), body: writer)
            guard entry.digest == resource.sha256 else {
                try store.remove(url: url)
                throw BundleError.digestMismatch(path: source)
            }
            count += 1
        }
        for (url, redirect) in manifest.redirects.sorted(by: { $0.key < $1.key }) {
            try store.store(
                url: url, varyKey: redirect.record.varyKey,
                head: Self.head(redirect.record, status: redirect.status), body: try store.makeBodyWriter())
            count += 1
        }
        try store.synchronize()
        return count
    }

    /// The cache's head for a manifest's `record` of a response with `status`.
    static func head(_ record: ResponseRecord, status: Int) -> CachedResponseHead {
        CachedResponseHead(status: status, headers: record.httpHeaders, requestTime: record.requestTime, responseTime: record.responseTime)
    }

    /// Checks and unpacks `bundle` into the cache's temporary folder, imports it, and removes
    /// the unpacked copy; returns how many entries were stored.
    @discardableResult
    public func importBundle(_ bundle: String, unpacker: BundleUnpacker = BundleUnpacker()) throws -> Int {
        let folder = "\(store.directory)/tmp/import-\(ProcessInfo.processInfo.processIdentifier)"
        try? FileManager.default.removeItem(atPath: folder)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let summary = try unpacker.unpack(bundle, to: folder)
        return try importFolder(folder, manifest: summary.manifest)
    }

    private func copy(_ path: String, into writer: BodyWriter) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw BundleError.missingFile(path: path) }
        defer { try? handle.close() }
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            try chunk.withUnsafeBytes { try writer.write($0) }
        }
    }
}
