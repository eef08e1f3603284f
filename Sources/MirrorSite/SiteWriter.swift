import Crypto
import Dispatch
import Foundation
import MirrorCore
public import MirrorHTML
public import MirrorCache
import Synchronization

/// Writes the offline folder while the crawl runs: each saved response lands in its mapped
/// file at once (written to a temporary file and renamed, so an interrupted crawl leaves
/// only whole files), and `finish` writes `index.html` and the manifest.
public final class SiteWriter: Sendable {
    public let directory: String
    private let mapper: PathMapper
    private let manifest: Mutex<SiteManifest>
    /// Where every URL pointed when the folder was opened: while that stays the same, a
    /// rewritten file whose response did not change is still right and is left alone.
    private let previousTargets: [String: String]

    public init(directory: String, mapper: PathMapper = PathMapper()) throws {
        self.directory = directory
        self.mapper = mapper
        for folder in [".mirror/tmp", SiteManifest.originalsFolder] {
            try FileManager.default.createDirectory(atPath: directory + "/" + folder, withIntermediateDirectories: true)
        }
        // A resumed crawl, or a new crawl into the same folder, keeps what was written before.
        let existing = FileManager.default.contents(atPath: Self.manifestPath(directory))
            .flatMap { try? JSONDecoder().decode(SiteManifest.self, from: $0) } ?? SiteManifest()
        manifest = Mutex(existing)
        previousTargets = existing.linkTargets
    }

    static func manifestPath(_ directory: String) -> String { directory + "/.mirror/manifest.json" }

    /// The references of the HTML page saved from a URL as a resource, as `HTMLReferenceLocator`
    /// found them in its original bytes, when the caller kept them from its own parse (the
    /// crawler does, in its journal): then finishing parses no page a second time.
    public typealias KnownReferences = @Sendable (_ url: String, _ resource: SiteManifest.Resource) -> [HTMLReference]?

    /// Saves a response under its mapped path; returns that path, relative to the folder.
    @discardableResult
    public func write(url: String, response: CacheResponse) async throws -> String {
        let contentType = response.headers.first(name: "content-type")
        guard let path = mapper.path(for: url, contentType: contentType)?.string else {
            throw SiteError.unmappable(url)
        }
        if let unchanged = unchangedResource(url: url, path: path, response: response) {
            manifest.withLock { $0.resources[url] = unchanged }
            return path
        }
        let target = directory + "/" + path
        try FileManager.default.createDirectory(
            atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let temporary = "\(directory)/.mirror/tmp/\(UUID().uuidString)"
        guard FileManager.default.createFile(atPath: temporary, contents: nil),
              let handle = FileHandle(forWritingAtPath: temporary) else {
            throw SiteError.io(path: temporary, message: "cannot create file")
        }
        // A body from the cache was hashed when stored (and is checked on read): reuse its digest.
        var hasher = response.entry == nil ? SHA256() : nil
        do {
            defer { try? handle.close() }
            for try await chunk in response.body.chunks(chunkSize: 256 * 1024) {
                hasher?.update(data: chunk)
                try handle.write(contentsOf: chunk)
            }
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw SiteError.io(path: target, message: "\(error)")
        }
        if rename(temporary, target) != 0 {
            try? FileManager.default.removeItem(atPath: temporary)
            throw SiteError.io(path: target, message: String(cString: strerror(errno)))
        }
        let digest = hasher.map { Hex.string($0.finalize()) } ?? response.entry?.digest ?? ""
        let resource = SiteManifest.Resource(
            path: path, status: response.status, contentType: contentType, size: response.body.count,
            sha256: digest, etag: response.headers.first(name: "etag"),
            lastModified: response.headers.first(name: "last-modified"), record: ResponseRecord(response, now: Self.now()))
        manifest.withLock { $0.resources[url] = resource }
        return path
    }

    static func now() -> Double { Date().timeIntervalSince1970 }

    /// The saved resource of `url` with a new record, when `response` has the same body as the
    /// file already saved there (a re-crawl answered by the cache or with a 304): its file,
    /// possibly rewritten already, needs no new write.
    private func unchangedResource(url: String, path: String, response: CacheResponse) -> SiteManifest.Resource? {
        guard let entry = response.entry, var saved = manifest.withLock({ $0.resources[url] }),
              saved.sha256 == entry.digest, saved.path == path, saved.status == response.status,
              saved.contentType == response.headers.first(name: "content-type"),
              let attributes = try? FileManager.default.attributesOfItem(atPath: directory + "/" + path),
              (attributes[.size] as? Int) == saved.fileDigest.size else { return nil }
        saved.record = ResponseRecord(response, now: Self.now())
        return saved
    }

    /// Rewrites the pending HTML and CSS files on every core (each file is independent). When
    /// some URL now points elsewhere than before, every file is rewritten again (from its original).
    private func rewriteLinks(knownReferences: KnownReferences?) throws {
        let snapshot = manifest.withLock { manifest in
            if manifest.linkTargets != previousTargets {
                for url in manifest.resources.keys { manifest.resources[url]?.rewritten = false }
            }
            return manifest
        }
        let pending = snapshot.resources.filter { !$0.value.rewritten && $0.value.kind != nil }.map { ($0.key, $0.value) }
        let failures = Mutex<[SiteError]>([])
        DispatchQueue.concurrentPerform(iterations: pending.count) { index in
            let (url, resource) = pending[index]
            do {
                let file = try rewrite(url: url, resource: resource, manifest: snapshot, knownReferences: knownReferences)
                manifest.withLock {
                    $0.resources[url]?.rewritten = true
                    $0.resources[url]?.file = file
                }
            } catch let error as SiteError {
                failures.withLock { $0.append(error) }
            } catch {
                failures.withLock { $0.append(.io(path: resource.path, message: "\(error)")) }
            }
        }
        if let failure = failures.withLock({ $0.first }) { throw failure }
    }

    /// Rewrites one file; returns the digest of the new file, or nil when nothing changed.
    /// The original body is kept as `.mirror/originals/<sha256>` (a hard link to the file as
    /// saved, so it costs no space until the rewritten file replaces it). The original is also
    /// the source when present, so a rewrite interrupted after the rename is simply redone.
    private func rewrite(
        url: String, resource: SiteManifest.Resource, manifest snapshot: SiteManifest, knownReferences: KnownReferences?
    ) throws -> SiteManifest.FileDigest? {
        let path = directory + "/" + resource.path
        let originalPath = directory + "/" + SiteManifest.originalPath(sha256: resource.sha256)
        let hasOriginal = FileManager.default.fileExists(atPath: originalPath)
        guard let kind = resource.kind,
              let original = FileManager.default.contents(atPath: hasOriginal ? originalPath : path) else { return nil }
        let bytes = Array(original)
        let rewriter = LinkRewriter()
        let rewritten: [UInt8]
        switch kind {
        case .html:
            let charset = CharsetSniffer.charset(contentType: resource.contentType, prefix: Array(bytes.prefix(1024)))
            rewritten = rewriter.rewriteHTML(
                bytes, charset: charset, pageURL: url, pagePath: resource.path, references: knownReferences?(url, resource),
                target: snapshot.path(for:))
        case .css:
            rewritten = rewriter.rewriteCSS(bytes, fileURL: url, filePath: resource.path, target: snapshot.path(for:))
        }
        guard rewritten != bytes || hasOriginal else { return nil }
        do {
            if !hasOriginal && link(path, originalPath) != 0 {
                try original.write(to: URL(fileURLWithPath: originalPath), options: .atomic)
            }
            try Data(rewritten).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw SiteError.io(path: path, message: "\(error)")
        }
        return rewritten == bytes ? nil : SiteManifest.FileDigest(sha256: Hex.string(SHA256.hash(data: rewritten)), size: rewritten.count)
    }

    /// Removes kept originals that no file needs any more (their page changed since).
    private func removeUnusedOriginals(_ snapshot: SiteManifest) {
        let folder = directory + "/" + SiteManifest.originalsFolder
        let used = Set(snapshot.resources.values.filter { $0.file != nil }.map(\.sha256))
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where !used.contains(name) {
            try? FileManager.default.removeItem(atPath: folder + "/" + name)
        }
    }

    /// Records that `from` redirected to `to` with `response` (links to `from` will point at `to`'s file).
    public func redirect(from: String, to: String, response: CacheResponse) {
        let redirect = SiteManifest.Redirect(location: to, status: response.status, record: ResponseRecord(response, now: Self.now()))
        manifest.withLock { $0.redirects[from] = redirect }
    }

    /// Rewrites the links of every HTML and CSS file not rewritten yet (their bytes on disk are
    /// still the originals), then writes `index.html` (opening the first seed's file) and the manifest.
    /// A link to a saved URL becomes a relative path; a link to anything else becomes absolute.
    public func finish(seeds: [String], knownReferences: KnownReferences? = nil) throws {
        try rewriteLinks(knownReferences: knownReferences)
        var snapshot = manifest.withLock { $0 }
        removeUnusedOriginals(snapshot)
        if let seed = seeds.first, let path = snapshot.path(for: seed) {
            let escaped = path.split(separator: "/").map { $0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? String($0) }
                .joined(separator: "/")
            let page = """
                <!DOCTYPE html>
                <html><head><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=\(escaped)">
                <title>mirror of \(seed)</title></head>
                <body><p><a href="\(escaped)">\(seed)</a></p></body></html>

                """
            try Data(page.utf8).write(to: URL(fileURLWithPath: directory + "/index.html"), options: .atomic)
            snapshot.index = SiteManifest.FileDigest(sha256: Hex.string(SHA256.hash(data: Array(page.utf8))), size: page.utf8.count)
            manifest.withLock { $0.index = snapshot.index }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(snapshot).write(to: URL(fileURLWithPath: Self.manifestPath(directory)), options: .atomic)
    }
}
