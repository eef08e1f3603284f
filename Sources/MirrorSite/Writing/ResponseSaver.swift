import Crypto
import Foundation
import MirrorCore
import MirrorLock

/// Saves the crawl's responses as they come: each lands in its named file at once — a hard link
/// to the cache's stored body when it has one (bodies are never written again once stored), else
/// written to `.mirror/tmp` and renamed, so an interrupted crawl leaves only whole files — and is
/// then recorded in the ledger. Redirects are recorded, and kept for the links that lead through
/// them.
final class ResponseSaver: Sendable {
    private let directory: String
    private let mapper: PathMapper
    private let names: SiteNames
    private let ledger: any SiteLedger
    private let files: AtomicFiles
    private let redirectsByURL: Locked<[String: SiteManifest.Redirect]>

    init(
        directory: String, mapper: PathMapper, names: SiteNames, ledger: any SiteLedger, files: AtomicFiles,
        redirects: [String: SiteManifest.Redirect]
    ) {
        self.directory = directory
        self.mapper = mapper
        self.names = names
        self.ledger = ledger
        self.files = files
        redirectsByURL = Locked(redirects)
    }

    /// Every redirect recorded, by URL.
    var redirects: [String: SiteManifest.Redirect] { redirectsByURL.withLock { $0 } }

    /// Saves a response under its path (`PathMapper`'s name, made unique by `PathRegistry`);
    /// returns that path, relative to the folder.
    func write(url: String, response: some SavedResponse) async throws -> String {
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
        let (assigned, sharers, isNew) = try names.withRegistry { registry in
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
            if isNew { names.forget(url) }
            throw error
        }
        return path
    }

    /// Records that `from` redirected to `to` with `response` (links to `from` will point at `to`'s file).
    func redirect(from: String, to: String, response: some SavedResponse) throws {
        let redirect = SiteManifest.Redirect(location: to, status: response.status, record: response.record(now: Self.now()))
        redirectsByURL.withLock { $0[from] = redirect }
        try SiteError.fromLedger { try ledger.redirected(from, redirect) }
    }

    /// The first resource the ledger has of `urls` with its file at `path`.
    private func savedResource(of urls: [String], at path: String) throws -> SiteManifest.Resource? {
        for url in urls {
            if let resource = try SiteError.fromLedger({ try ledger.resource(of: url) }), resource.path == path { return resource }
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
        try SiteError.fromLedger { try ledger.saved(url, resource) }
    }

    private static func now() -> Double { Date().timeIntervalSince1970 }

    /// The saved resource of `url` with a new record, when `response` has the same body as the
    /// file already saved there (a re-crawl answered by the cache or with a 304): its file,
    /// possibly rewritten already, needs no new write. Only a URL with a name is looked up.
    private func unchangedResource(url: String, response: some SavedResponse) throws -> SiteManifest.Resource? {
        guard let digest = response.knownDigest, try names.withRegistry({ $0.path(of: url) != nil }),
            var saved = try SiteError.fromLedger({ try ledger.resource(of: url) }),
            saved.sha256 == digest, saved.status == response.status,
            saved.contentType == response.headers.first(name: "content-type"),
            let attributes = try? FileManager.default.attributesOfItem(atPath: directory + "/" + saved.path),
            (attributes[.size] as? Int) == saved.fileDigest.size
        else { return nil }
        saved.record = response.record(now: Self.now())
        return saved
    }
}
