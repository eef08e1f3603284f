import Crypto
import Dispatch
import Foundation
import MirrorCore
public import MirrorHTML
import Synchronization

/// Writes the offline folder while the crawl runs: each saved response lands in its mapped
/// file at once — a hard link to the cache's stored body when it has one (bodies are never
/// written again once stored), else written to `.mirror/tmp` and renamed, so an interrupted
/// crawl leaves only whole files — and is recorded in the ledger; `finish` rewrites links and
/// writes `index.html` and the manifest.
///
/// It holds the names given (`PathRegistry`) and the redirects, not the resources: those are in
/// the ledger, which the finishing reads back in slices (`SiteLedger`).
///
/// Crash safety: a file is in place before its record, records survive as a prefix, and
/// rewriting starts from the kept original (`.mirror/originals`). So after `kill -9` at any
/// moment the next crawl into the folder knows every file the ledger recorded and finishes
/// the folder exactly as an uninterrupted crawl would; files saved but not yet recorded are
/// simply saved again.
public final class SiteWriter: Sendable {
    public let directory: String
    private let mapper: PathMapper
    /// The names given so far; rebuilt from the ledger's resources, as `PathMapper` is
    /// deterministic. Also where the finished folder's links lead (`LinkTargets`). Nil once
    /// `finish` has rewritten the links: writing the manifest does not use it, and it is the
    /// largest thing a crawl holds then (at 100,000 URLs, 33 MB). A write after that rebuilds it.
    private let registry: Mutex<PathRegistry?>
    private let redirects: Mutex<[String: SiteManifest.Redirect]>
    private let ledger: any SiteLedger
    private let files: AtomicFiles

    /// Opens `directory` (created if needed) with what the ledger, or else an existing
    /// manifest, says it holds. Temporary files of a killed run are removed.
    public init(directory: String, mapper: PathMapper = PathMapper(), ledger: any SiteLedger) throws {
        self.directory = directory
        self.mapper = mapper
        self.ledger = ledger
        let temporary = directory + "/.mirror/tmp"
        files = AtomicFiles(temporaryFolder: temporary)
        try? FileManager.default.removeItem(atPath: temporary)
        try FileManager.default.createDirectory(atPath: directory + "/" + SiteManifest.originalsFolder, withIntermediateDirectories: true)
        do { try files.temporary.create() } catch { throw SiteError.io(error) }
        var saved = try ledger.redirects()
        // A folder from before the ledger, or an unpacked bundle: adopt its manifest.
        if saved.isEmpty, try ledger.resources(after: nil, limit: 1).isEmpty,
           let adopted = FileManager.default.contents(atPath: Self.manifestPath(directory))
               .flatMap({ try? JSONDecoder().decode(SiteManifest.self, from: $0) }) {
            for (url, resource) in adopted.resources { try ledger.saved(url, resource) }
            for (url, redirect) in adopted.redirects { try ledger.redirected(url, redirect) }
            try ledger.flush()
            saved = adopted.redirects
        }
        redirects = Mutex(saved)
        registry = Mutex(try Self.registry(of: ledger, mapper: mapper))
    }

    /// `body`'s use of the registry, rebuilt first if `finish` let it go.
    private func withRegistry<Value>(_ body: (inout PathRegistry) throws -> Value) throws -> Value {
        try registry.withLock { registry in
            if registry == nil { registry = try fromLedger { try Self.registry(of: $0, mapper: mapper) } }
            return try body(&registry!)
        }
    }

    /// The registry of the names the ledger's resources were given.
    private static func registry(of ledger: any SiteLedger, mapper: PathMapper) throws -> PathRegistry {
        var saved: [PathRegistry.Assignment] = []
        try forEachSlice(of: ledger) { slice in
            for (url, resource) in slice {
                saved.append(PathRegistry.Assignment(
                    url: url, preferred: mapper.path(for: url, contentType: resource.contentType)?.string ?? "",
                    path: resource.path, sha256: resource.sha256))
            }
        }
        saved.sort { $0.path.bytesPrecede($1.path) }
        return PathRegistry(assignments: saved, maxSegmentBytes: mapper.maxSegmentBytes)
    }

    /// Hands the ledger's resources to `body` in slices, in the order of their URLs' bytes.
    private static func forEachSlice(
        of ledger: any SiteLedger, _ body: ([(url: String, resource: SiteManifest.Resource)]) throws -> Void
    ) throws {
        let next = ledger.resourceSlices()
        while case let slice = try next(), !slice.isEmpty { try body(slice) }
    }

    static func manifestPath(_ directory: String) -> String { directory + "/" + SiteManifest.path }

    /// The references of the HTML page saved from a URL as a resource, as `HTMLReferenceLocator`
    /// found them in its original bytes, when the caller kept them from its own parse (the
    /// crawler does, in its journal): then finishing parses no page a second time.
    public typealias KnownReferences = @Sendable (_ url: String, _ resource: SiteManifest.Resource) -> [HTMLReference]?

    /// Saves a response under its path (`PathMapper`'s name, made unique by `PathRegistry`);
    /// returns that path, relative to the folder.
    @discardableResult
    public func write(url: String, response: some SavedResponse) async throws -> String {
        let contentType = response.headers.first(name: "content-type")
        guard let preferred = mapper.path(for: url, contentType: contentType) else { throw SiteError.unmappable(url) }
        if let unchanged = try unchangedResource(url: url, response: response) {
            try record(url, unchanged)
            return unchanged.path
        }
        // A stored body's digest is known, and its file can be linked; another body is written
        // (and hashed) first, to a temporary file that is renamed into place or removed.
        var temporary: String?
        defer { if let temporary { try? PosixFile.remove(temporary) } }
        let digest: String
        if let known = response.knownDigest {
            digest = known
        } else {
            (temporary, digest) = try await writeTemporary(response, name: preferred.string)
        }
        let (assigned, sharers, isNew) = try withRegistry { registry in
            let isNew = registry.path(of: url) == nil
            let path = registry.assign(url: url, preferred: preferred, sha256: digest)
            return (path, registry.urls(at: path).filter { $0 != url }, isNew)
        }
        let path = assigned.string
        do {
            var resource = SiteManifest.Resource(
                path: path, status: response.status, contentType: contentType, size: response.bodySize,
                sha256: digest, etag: response.headers.first(name: "etag"),
                lastModified: response.headers.first(name: "last-modified"), record: response.record(now: Self.now()))
            // The registry shares a file only between URLs with the same body (`/` and `/index.html`):
            // once one of them is saved, the file is in place, in whatever state that one recorded.
            if let shared = try savedResource(of: sharers, at: path) {
                resource.setRewritten(for: shared.rewrittenFor, file: shared.file)
            } else if try !linked(response, at: directory + "/" + path, written: temporary != nil) {
                // Written above, or a stored body that cannot be linked (the cache on another file
                // system, the body damaged): a copy.
                let written: String
                if let temporary { written = temporary } else { written = try await writeTemporary(response, name: path).path }
                try files.place(written, at: directory + "/" + path)
                temporary = nil
            }
            try record(url, resource)
        } catch {
            // Not saved: links to a URL saved before lead to its old file; to a new one, nowhere.
            if isNew { registry.withLock { $0?.forget(url) } }
            throw error
        }
        return path
    }

    /// The first resource the ledger has of `urls` with its file at `path`.
    private func savedResource(of urls: [String], at path: String) throws -> SiteManifest.Resource? {
        for url in urls {
            if let resource = try fromLedger({ try $0.resource(of: url) }), resource.path == path { return resource }
        }
        return nil
    }

    /// Links `response`'s stored body at `target`, unless its body was `written` to a file; false
    /// when it was not linked.
    private func linked(_ response: some SavedResponse, at target: String, written: Bool) throws -> Bool {
        guard !written else { return false }
        return try files.placeLink(at: target, response.linkBody(to:))
    }

    /// Writes `response`'s body to a new temporary file; returns the file and the body's SHA-256.
    private func writeTemporary(_ response: some SavedResponse, name: String) async throws -> (path: String, digest: String) {
        let (temporary, descriptor) = try files.create()
        var hasher = SHA256()
        do {
            defer { close(descriptor) }
            for try await chunk in response.bodyChunks(chunkSize: 256 * 1024) {
                hasher.update(data: chunk)
                try files.write(chunk, to: descriptor, path: temporary)
            }
        } catch {
            try? PosixFile.remove(temporary)
            throw SiteError.io(path: name, message: "\(error)")
        }
        return (temporary, Hex.string(hasher.finalize()))
    }

    private func record(_ url: String, _ resource: SiteManifest.Resource) throws {
        try fromLedger { try $0.saved(url, resource) }
    }

    /// `body`'s use of the ledger, its failure a `SiteError`.
    private func fromLedger<Value>(_ body: (any SiteLedger) throws -> Value) throws -> Value {
        do { return try body(ledger) } catch let error as SiteError { throw error } catch {
            throw SiteError.io(path: Self.ledgerName, message: "\(error)")
        }
    }

    static let ledgerName = ".mirror/journal.sqlite"

    static func now() -> Double { Date().timeIntervalSince1970 }

    /// The saved resource of `url` with a new record, when `response` has the same body as the
    /// file already saved there (a re-crawl answered by the cache or with a 304): its file,
    /// possibly rewritten already, needs no new write. Only a URL with a name is looked up.
    private func unchangedResource(url: String, response: some SavedResponse) throws -> SiteManifest.Resource? {
        guard let digest = response.knownDigest, try withRegistry({ $0.path(of: url) != nil }),
              var saved = try fromLedger({ try $0.resource(of: url) }),
              saved.sha256 == digest, saved.status == response.status,
              saved.contentType == response.headers.first(name: "content-type"),
              let attributes = try? FileManager.default.attributesOfItem(atPath: directory + "/" + saved.path),
              (attributes[.size] as? Int) == saved.fileDigest.size else { return nil }
        saved.record = response.record(now: Self.now())
        return saved
    }

    /// Rewrites, on every core, each HTML and CSS file not rewritten against `targets` (each
    /// file is independent; a file several URLs share is rewritten once, as the page of the
    /// first of them), and records what was rewritten. The ledger's resources are read in slices:
    /// only one slice is held at a time.
    private func rewriteLinks(_ targets: LinkTargets, knownReferences: KnownReferences?) throws {
        let digest = targets.digest
        try fromLedger { ledger in
            try Self.forEachSlice(of: ledger) { slice in
                var groups: [[(url: String, resource: SiteManifest.Resource)]] = []
                for (url, resource) in slice where resource.kind != nil {
                    guard let group = try group(of: url, resource, registry: targets.registry),
                          group.contains(where: { $0.resource.rewrittenFor != digest }) else { continue }
                    groups.append(group)
                }
                try rewriteFiles(groups, targets: targets, digest: digest, knownReferences: knownReferences)
            }
        }
    }

    /// The URLs whose file is `url`'s, with their resources, `url` first; nil when `url` is not
    /// the first of them in the order of URL bytes (the file is rewritten as that one's page).
    private func group(
        of url: String, _ resource: SiteManifest.Resource, registry: PathRegistry
    ) throws -> [(url: String, resource: SiteManifest.Resource)]? {
        let sharers = registry.urls(at: resource.path)
        guard sharers.count > 1, sharers.contains(url) else { return [(url, resource)] }
        var group = [(url: url, resource: resource)]
        for sharer in sharers where sharer != url {
            guard let shared = try ledger.resource(of: sharer), shared.path == resource.path, shared.kind != nil else { continue }
            if sharer.bytesPrecede(url) { return nil }
            group.append((sharer, shared))
        }
        return group
    }

    /// Rewrites the file of each group, and records its URLs' resources as rewritten once it is
    /// in place.
    private func rewriteFiles(
        _ groups: [[(url: String, resource: SiteManifest.Resource)]], targets: LinkTargets, digest: String,
        knownReferences: KnownReferences?
    ) throws {
        let failures = Mutex<[SiteError]>([])
        DispatchQueue.concurrentPerform(iterations: groups.count) { index in
            let (first, resource) = groups[index][0]
            do {
                let file = try rewrite(url: first, resource: resource, targets: targets, knownReferences: knownReferences)
                for (url, saved) in groups[index] {
                    var updated = saved
                    updated.setRewritten(for: digest, file: file)
                    try record(url, updated)
                }
            } catch let error as SiteError {
                failures.withLock { $0.append(error) }
            } catch {
                failures.withLock { $0.append(.io(path: resource.path, message: "\(error)")) }
            }
        }
        if let failure = failures.withLock({ $0.first }) { throw failure }
    }

    /// Rewrites one file; returns the digest of the file it should be, or nil when that is the
    /// original body. A file that already is what it should be stays as it is. The original
    /// body is kept as `.mirror/originals/<sha256>`: the file as saved (a hard link to the
    /// cache's body, so no copy), renamed there as the rewritten file takes its place. The
    /// original is also the source when present, so an interrupted rewrite is simply redone.
    private func rewrite(
        url: String, resource: SiteManifest.Resource, targets: LinkTargets, knownReferences: KnownReferences?
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
            throw SiteError.io(error)
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
                target: targets.path(for:))
        case .css:
            rewritten = rewriter.rewriteCSS(bytes, fileURL: url, filePath: resource.path, target: targets.path(for:))
        }
        let file = rewritten == bytes ? nil : SiteManifest.FileDigest(sha256: Hex.string(SHA256.hash(data: rewritten)), size: rewritten.count)
        // The file in place may hold these bytes already (the folder's link targets changed, not
        // this file's): it stays, rather than becoming a new file with a new modification time.
        let current: [UInt8]?
        do throws(FileSystemError) {
            current = hasOriginal ? try FileReading.contents(of: path) : bytes
        } catch {
            throw SiteError.io(error)
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
        for move in try withRegistry({ $0.rejoin() }) {
            try? PosixFile.remove(directory + "/" + move.left)
            guard let sharer = try fromLedger({ try $0.resource(of: move.sharer) }) else { continue }
            for url in move.urls {
                guard var moved = try fromLedger({ try $0.resource(of: url) }) else { continue }
                moved.share(sharer)
                try record(url, moved)
            }
        }
    }

    /// Removes kept originals that no file needs any more (their page changed since).
    private func removeUnusedOriginals(_ used: UsedOriginals) {
        let folder = directory + "/" + SiteManifest.originalsFolder
        FolderListing.forEachName(in: folder) { name in
            if !used.contains(name) { try? PosixFile.remove(folder + "/" + name) }
        }
    }

    /// Records that `from` redirected to `to` with `response` (links to `from` will point at `to`'s file).
    public func redirect(from: String, to: String, response: some SavedResponse) throws {
        let redirect = SiteManifest.Redirect(location: to, status: response.status, record: response.record(now: Self.now()))
        redirects.withLock { $0[from] = redirect }
        try fromLedger { try $0.redirected(from, redirect) }
    }

    /// Rewrites the links of every HTML and CSS file not rewritten against the current targets
    /// (their originals are kept), then writes `index.html` (opening the first seed's file) and
    /// the manifest, from the ledger. A link to a saved URL becomes a relative path; a link to
    /// anything else becomes absolute. Kept originals no file needs are removed last: a kill
    /// before that leaves them for the next finish.
    /// - Parameter searchIndex: makes the folder's search index from the ledger's resources, and
    ///   returns its digest for the manifest. It runs on a thread of its own while the links are
    ///   rewritten (which changes no page's text).
    public func finish(seeds: [String], knownReferences: KnownReferences? = nil,
                       searchIndex: (@Sendable (_ ledger: any SiteLedger) throws -> SiteManifest.FileDigest)? = nil) throws {
        try rejoinSpellings()
        let indexing = searchIndex.map { make in BackgroundWork { [ledger] in try make(ledger) } }
        let seedPath: String?
        do {
            let targets = LinkTargets(registry: try withRegistry { $0 }, redirects: redirects.withLock { $0 })
            try rewriteLinks(targets, knownReferences: knownReferences)
            seedPath = seeds.first.flatMap(targets.path(for:))
        } catch {
            _ = try? indexing?.result()
            throw error
        }
        registry.withLock { $0 = nil }
        try fromLedger { try $0.flush() }
        var index: SiteManifest.FileDigest?
        if let seed = seeds.first, let path = seedPath {
            let escaped = path.split(separator: "/").map { $0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? String($0) }
                .joined(separator: "/")
            let page = Array("""
                <!DOCTYPE html>
                <html><head><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=\(escaped)">
                <title>mirror of \(seed)</title></head>
                <body><p><a href="\(escaped)">\(seed)</a></p></body></html>

                """.utf8)
            try files.writeAtomically(page, to: directory + "/index.html")
            index = SiteManifest.FileDigest(sha256: Hex.string(SHA256.hash(data: page)), size: page.count)
        }
        let search = try indexing?.result()
        var used = UsedOriginals()
        let next = ledger.resourceSlices()
        try files.writeAtomically(to: Self.manifestPath(directory)) { write in
            try SiteManifest.writeJSON(index: index, search: search, redirects: redirects.withLock { $0 }, resources: {
                let slice = try self.fromLedger { _ in try next() }
                for (_, resource) in slice where resource.file != nil { used.note(resource.digest) }
                return slice.map { ($0.url, $0.resource) }
            }, seeds: seeds, write)
        }
        used.sort()
        removeUnusedOriginals(used)
    }
}
