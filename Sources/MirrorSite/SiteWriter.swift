import Crypto
import Dispatch
import Foundation
import MirrorCore
public import MirrorHTML
public import MirrorCache
import Synchronization

/// Writes the offline folder while the crawl runs: each saved response lands in its mapped
/// file at once — a hard link to the cache's stored body when it has one (bodies are never
/// written again once stored), else written to `.mirror/tmp` and renamed, so an interrupted
/// crawl leaves only whole files — and is recorded in the ledger; `finish` rewrites links and
/// writes `index.html` and the manifest.
///
/// Crash safety: a file is in place before its record, records survive as a prefix, and
/// rewriting starts from the kept original (`.mirror/originals`). So after `kill -9` at any
/// moment the next crawl into the folder knows every file the ledger recorded and finishes
/// the folder exactly as an uninterrupted crawl would; files saved but not yet recorded are
/// simply saved again.
public final class SiteWriter: Sendable {
    public let directory: String
    private let mapper: PathMapper
    private let manifest: Mutex<SiteManifest>
    /// The names given so far; rebuilt from the manifest, as `PathMapper` is deterministic.
    /// Nil once `finish` has put the spellings of each file together: the rest of finishing
    /// does not use it, and it is the largest thing a crawl holds then (at 100,000 URLs, its
    /// tables alone are 17 MB). A write after that rebuilds it.
    private let registry: Mutex<PathRegistry?>
    private let ledger: (any SiteLedger)?
    private let files: AtomicFiles
    /// The cache the crawl stores into: a response it holds is saved as a hard link to its body.
    private let bodies: CacheStore?

    /// Opens `directory` (created if needed) with what the ledger, or else an existing
    /// manifest, says it holds. Temporary files of a killed run are removed.
    public init(directory: String, mapper: PathMapper = PathMapper(), ledger: (any SiteLedger)? = nil,
                bodies: CacheStore? = nil) throws {
        self.directory = directory
        self.bodies = bodies
        self.mapper = mapper
        self.ledger = ledger
        let temporary = directory + "/.mirror/tmp"
        files = AtomicFiles(temporaryFolder: temporary)
        try? FileManager.default.removeItem(atPath: temporary)
        try FileManager.default.createDirectory(atPath: directory + "/" + SiteManifest.originalsFolder, withIntermediateDirectories: true)
        do { try files.temporary.create() } catch { throw SiteError.io(path: error.path, message: error.message) }
        var existing = try ledger?.savedSite()
        if existing == nil {
            // A folder from before the ledger, or an unpacked bundle: adopt its manifest.
            existing = FileManager.default.contents(atPath: Self.manifestPath(directory))
                .flatMap { try? JSONDecoder().decode(SiteManifest.self, from: $0) }
            if let ledger, let adopted = existing {
                for (url, resource) in adopted.resources { try ledger.saved(url, resource) }
                for (url, redirect) in adopted.redirects { try ledger.redirected(url, redirect) }
                try ledger.flush()
            }
        }
        let site = existing ?? SiteManifest()
        manifest = Mutex(site)
        registry = Mutex(Self.registry(of: site, mapper: mapper))
    }

    /// The registry of the names `site` gives its URLs.
    private static func registry(of site: SiteManifest, mapper: PathMapper) -> PathRegistry {
        // Sorted as assignments, not as (URL, resource) pairs: a copy of every resource would
        // be the largest thing a resumed crawl of 100,000 pages holds.
        let saved = site.resources.map { url, resource in
            PathRegistry.Assignment(url: url, preferred: mapper.path(for: url, contentType: resource.contentType)?.string ?? "",
                                    path: resource.path, sha256: resource.sha256)
        }.sorted { $0.path.bytesPrecede($1.path) }
        return PathRegistry(assignments: saved, maxSegmentBytes: mapper.maxSegmentBytes)
    }

    static func manifestPath(_ directory: String) -> String { directory + "/" + SiteManifest.path }

    /// The references of the HTML page saved from a URL as a resource, as `HTMLReferenceLocator`
    /// found them in its original bytes, when the caller kept them from its own parse (the
    /// crawler does, in its journal): then finishing parses no page a second time.
    public typealias KnownReferences = @Sendable (_ url: String, _ resource: SiteManifest.Resource) -> [HTMLReference]?

    /// Saves a response under its path (`PathMapper`'s name, made unique by `PathRegistry`);
    /// returns that path, relative to the folder.
    @discardableResult
    public func write(url: String, response: CacheResponse) async throws -> String {
        let contentType = response.headers.first(name: "content-type")
        guard let preferred = mapper.path(for: url, contentType: contentType) else { throw SiteError.unmappable(url) }
        if let unchanged = unchangedResource(url: url, response: response) {
            manifest.withLock { $0.resources[url] = unchanged }
            try record(url, unchanged)
            return unchanged.path
        }
        // A stored body's digest is known, and its file can be linked; another body is written
        // (and hashed) first, to a temporary file that is renamed into place or removed.
        let stored = bodies == nil ? nil : response.entry
        var temporary: String?
        defer { if let temporary { unlink(temporary) } }
        let digest: String
        if let stored {
            digest = stored.digest
        } else {
            (temporary, digest) = try await writeTemporary(response.body, name: preferred.string)
        }
        let (assigned, sharers) = registry.withLock { registry in
            if registry == nil { registry = Self.registry(of: manifest.withLock { $0 }, mapper: mapper) }
            let path = registry!.assign(url: url, preferred: preferred, sha256: digest)
            return (path, registry!.urls(at: path).filter { $0 != url })
        }
        let path = assigned.string
        var resource = SiteManifest.Resource(
            path: path, status: response.status, contentType: contentType, size: response.body.count,
            sha256: digest, etag: response.headers.first(name: "etag"),
            lastModified: response.headers.first(name: "last-modified"), record: ResponseRecord(response, now: Self.now()))
        // The registry shares a file only between URLs with the same body (`/` and `/index.html`):
        // once one of them is saved, the file is in place, in whatever state that one recorded.
        if let shared = manifest.withLock({ manifest in sharers.compactMap { manifest.resources[$0] }.first { $0.path == path } }) {
            resource.setRewritten(for: shared.rewrittenFor, file: shared.file)
        } else if try !placeStoredBody(stored, at: directory + "/" + path) {
            // Written above, or a stored body that cannot be linked (the cache on another file
            // system, the body damaged): a copy.
            let written: String
            if let temporary { written = temporary } else { written = try await writeTemporary(response.body, name: path).path }
            try files.place(written, at: directory + "/" + path)
            temporary = nil
        }
        manifest.withLock { $0.resources[url] = resource }
        try record(url, resource)
        return path
    }

    /// Links the cache's body of `entry` at `target`; false when there is none to link.
    private func placeStoredBody(_ entry: CacheEntry?, at target: String) throws -> Bool {
        guard let entry, let bodies else { return false }
        return try files.placeLink(at: target) { bodies.linkBody(of: entry, to: $0) }
    }

    /// Writes `body` to a new temporary file; returns the file and the body's SHA-256.
    private func writeTemporary(_ body: ResponseBody, name: String) async throws -> (path: String, digest: String) {
        let (temporary, descriptor) = try files.create()
        var hasher = SHA256()
        do {
            defer { close(descriptor) }
            for try await chunk in body.chunks(chunkSize: 256 * 1024) {
                hasher.update(data: chunk)
                try files.write(chunk, to: descriptor, path: temporary)
            }
        } catch {
            unlink(temporary)
            throw SiteError.io(path: name, message: "\(error)")
        }
        return (temporary, Hex.string(hasher.finalize()))
    }

    private func record(_ url: String, _ resource: SiteManifest.Resource) throws {
        do { try ledger?.saved(url, resource) } catch { throw SiteError.io(path: Self.ledgerName, message: "\(error)") }
    }

    static let ledgerName = ".mirror/journal.sqlite"

    static func now() -> Double { Date().timeIntervalSince1970 }

    /// The saved resource of `url` with a new record, when `response` has the same body as the
    /// file already saved there (a re-crawl answered by the cache or with a 304): its file,
    /// possibly rewritten already, needs no new write.
    private func unchangedResource(url: String, response: CacheResponse) -> SiteManifest.Resource? {
        guard let entry = response.entry, var saved = manifest.withLock({ $0.resources[url] }),
              saved.sha256 == entry.digest, saved.status == response.status,
              saved.contentType == response.headers.first(name: "content-type"),
              let attributes = try? FileManager.default.attributesOfItem(atPath: directory + "/" + saved.path),
              (attributes[.size] as? Int) == saved.fileDigest.size else { return nil }
        saved.record = ResponseRecord(response, now: Self.now())
        return saved
    }

    /// Rewrites, on every core, each HTML and CSS file not yet rewritten against the current
    /// link targets (each file is independent; a file several URLs share is rewritten once,
    /// as the page of the first of them), then notes in the manifest what was rewritten.
    private func rewriteLinks(knownReferences: KnownReferences?) throws {
        let pending = Self.pendingFiles(manifest.withLock { $0 })
        // In slices, each noted in place once the snapshot its rewriting read is gone: changing
        // the manifest while it is shared would copy its whole table, and holding the new file
        // digests of every page until the end took 5 MB more at 100,000 pages.
        for start in stride(from: 0, to: pending.groups.count, by: 4096) {
            let slice = pending.groups[start..<min(start + 4096, pending.groups.count)]
            let files = try rewriteFiles(slice, of: pending, knownReferences: knownReferences)
            manifest.withLock { manifest in
                for (group, file) in zip(slice, files) {
                    for url in pending.urls(group) { manifest.resources[url]?.setRewritten(for: pending.targets, file: file) }
                }
            }
        }
    }

    /// The files `rewriteLinks` rewrites: the link targets' digest they are rewritten against,
    /// the files with links, as (path, URL) pairs in order of path then URL, and the groups of
    /// pairs (one file each) to rewrite. Ranges and one array,
    /// not a dictionary of arrays: at 100,000 pages that was 100,000 small arrays at the crawl's
    /// peak of memory.
    private struct PendingFiles {
        var targets: String
        var pairs: [(path: String, url: String)]
        var groups: [Range<Int>]

        func urls(_ group: Range<Int>) -> some Sequence<String> { pairs[group].lazy.map(\.url) }
    }

    /// Rewrites the files of `groups`, from a snapshot of the manifest; returns each group's new
    /// file digest (nil: its original bytes). Each resource updated is recorded in the ledger
    /// once its file is in place.
    private func rewriteFiles(
        _ groups: ArraySlice<Range<Int>>, of pending: PendingFiles, knownReferences: KnownReferences?
    ) throws -> [SiteManifest.FileDigest?] {
        let snapshot = manifest.withLock { $0 }
        let failures = Mutex<[SiteError]>([])
        let files = Mutex([SiteManifest.FileDigest?](repeating: nil, count: groups.count))
        DispatchQueue.concurrentPerform(iterations: groups.count) { index in
            let group = pending.pairs[groups[groups.startIndex + index]]
            let first = group.first!.url
            let resource = snapshot.resources[first]!
            do {
                let file = try rewrite(url: first, resource: resource, manifest: snapshot, knownReferences: knownReferences)
                for (_, url) in group {
                    guard var updated = snapshot.resources[url] else { continue }
                    updated.setRewritten(for: pending.targets, file: file)
                    try record(url, updated)
                }
                files.withLock { $0[index] = file }
            } catch let error as SiteError {
                failures.withLock { $0.append(error) }
            } catch {
                failures.withLock { $0.append(.io(path: resource.path, message: "\(error)")) }
            }
        }
        if let failure = failures.withLock({ $0.first }) { throw failure }
        return files.withLock { $0 }
    }

    /// The files of `snapshot` with a URL not rewritten against its current link targets.
    private static func pendingFiles(_ snapshot: SiteManifest) -> PendingFiles {
        let targets = snapshot.linkTargetsDigest
        var pairs: [(path: String, url: String)] = []
        pairs.reserveCapacity(snapshot.resources.count)  // grown by doubling: up to twice the memory, at the crawl's peak
        for (url, resource) in snapshot.resources where resource.kind != nil { pairs.append((resource.path, url)) }
        pairs.sort { a, b in
            let order = a.path.compareBytes(b.path)
            return order != 0 ? order < 0 : a.url.bytesPrecede(b.url)
        }
        var groups: [Range<Int>] = []
        groups.reserveCapacity(pairs.count)
        var start = 0
        while start < pairs.count {
            var end = start + 1
            while end < pairs.count, pairs[end].path.bytesEqual(pairs[start].path) { end += 1 }
            if pairs[start..<end].contains(where: { snapshot.resources[$0.url]?.rewrittenFor != targets }) { groups.append(start..<end) }
            start = end
        }
        return PendingFiles(targets: targets, pairs: pairs, groups: groups)
    }

    /// Rewrites one file; returns the digest of the file it should be, or nil when that is the
    /// original body. A file that already is what it should be stays as it is. The original
    /// body is kept as `.mirror/originals/<sha256>`: the file as saved (a hard link to the
    /// cache's body, so no copy), renamed there as the rewritten file takes its place. The
    /// original is also the source when present, so an interrupted rewrite is simply redone.
    private func rewrite(
        url: String, resource: SiteManifest.Resource, manifest snapshot: SiteManifest, knownReferences: KnownReferences?
    ) throws -> SiteManifest.FileDigest? {
        let path = directory + "/" + resource.path
        let originalPath = directory + "/" + SiteManifest.originalPath(sha256: resource.sha256)
        guard let kind = resource.kind else { return nil }
        let original: [UInt8]?
        let saved: [UInt8]?
        do throws(FileSystemError) {
            original = try FileReading.contents(of: originalPath)
            saved = if let original { original } else { try FileReading.contents(of: path) }
        } catch {
            throw SiteError.io(path: error.path, message: error.message)
        }
        let hasOriginal = original != nil
        guard let bytes = saved else { return nil }
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
        let file = rewritten == bytes ? nil : SiteManifest.FileDigest(sha256: Hex.string(SHA256.hash(data: rewritten)), size: rewritten.count)
        // The file in place may hold these bytes already (the folder's link targets changed, not
        // this file's): it stays, rather than becoming a new file with a new modification time.
        let current: [UInt8]?
        do throws(FileSystemError) {
            current = hasOriginal ? try FileReading.contents(of: path) : bytes
        } catch {
            throw SiteError.io(path: error.path, message: error.message)
        }
        if current == rewritten { return file }
        if !hasOriginal {
            if try files.replace(rewritten, at: path, keepingOldAt: originalPath) { return file }
            try files.writeAtomically(bytes, to: originalPath)
        }
        try files.replace(rewritten, at: path)
        return file
    }

    /// Puts spellings of one file that a re-crawl had parted back in it (`PathRegistry.rejoin`).
    /// Each file left is deleted before its URLs are recorded at the file they join: a kill in
    /// between leaves records naming a deleted file, which the next crawl's finish moves alike.
    private func rejoinSpellings() throws {
        for move in registry.withLock({ $0?.rejoin() ?? [] }) {
            unlink(directory + "/" + move.left)
            for url in move.urls {
                let moved = manifest.withLock { manifest -> SiteManifest.Resource? in
                    guard var moved = manifest.resources[url], let sharer = manifest.resources[move.sharer] else { return nil }
                    moved.share(sharer)
                    manifest.resources[url] = moved
                    return moved
                }
                if let moved { try record(url, moved) }
            }
        }
    }

    /// Removes kept originals that no file needs any more (their page changed since).
    private func removeUnusedOriginals(_ snapshot: SiteManifest) {
        let folder = directory + "/" + SiteManifest.originalsFolder
        // Only their digests, as held, in a sorted array: no array of the resources themselves
        // (at 100,000 pages, 40 MB at the crawl's peak of memory), and no set (16 MB with its
        // buckets, then the peak).
        var used: [HexDigest] = []
        used.reserveCapacity(snapshot.resources.count)
        for resource in snapshot.resources.values where resource.file != nil { used.append(resource.digest) }
        used.sort()
        FolderListing.forEachName(in: folder) { name in
            let digest = HexDigest(name)
            var (low, high) = (0, used.count)
            while low < high {
                let middle = (low + high) / 2
                if used[middle] < digest { low = middle + 1 } else { high = middle }
            }
            if low == used.count || used[low] != digest { unlink(folder + "/" + name) }
        }
    }

    /// Records that `from` redirected to `to` with `response` (links to `from` will point at `to`'s file).
    public func redirect(from: String, to: String, response: CacheResponse) throws {
        let redirect = SiteManifest.Redirect(location: to, status: response.status, record: ResponseRecord(response, now: Self.now()))
        manifest.withLock { $0.redirects[from] = redirect }
        do { try ledger?.redirected(from, redirect) } catch { throw SiteError.io(path: Self.ledgerName, message: "\(error)") }
    }

    /// Rewrites the links of every HTML and CSS file not rewritten against the current targets
    /// (their originals are kept), then writes `index.html` (opening the first seed's file) and
    /// the manifest. A link to a saved URL becomes a relative path; a link to anything else
    /// becomes absolute.
    public func finish(seeds: [String], knownReferences: KnownReferences? = nil) throws {
        try rejoinSpellings()
        registry.withLock { $0 = nil }
        try rewriteLinks(knownReferences: knownReferences)
        do { try ledger?.flush() } catch { throw SiteError.io(path: Self.ledgerName, message: "\(error)") }
        var snapshot = manifest.withLock { manifest in
            manifest.seeds = seeds
            return manifest
        }
        removeUnusedOriginals(snapshot)
        if let seed = seeds.first, let path = snapshot.path(for: seed) {
            let escaped = path.split(separator: "/").map { $0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? String($0) }
                .joined(separator: "/")
            let page = Array("""
                <!DOCTYPE html>
                <html><head><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=\(escaped)">
                <title>mirror of \(seed)</title></head>
                <body><p><a href="\(escaped)">\(seed)</a></p></body></html>

                """.utf8)
            try files.writeAtomically(page, to: directory + "/index.html")
            snapshot.index = SiteManifest.FileDigest(sha256: Hex.string(SHA256.hash(data: page)), size: page.count)
            manifest.withLock { $0.index = snapshot.index }
        }
        try files.writeAtomically(to: Self.manifestPath(directory)) { try snapshot.writeJSON($0) }
    }
}
