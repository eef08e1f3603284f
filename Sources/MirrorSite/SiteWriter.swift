import Crypto
import Dispatch
import Foundation
import MirrorHTML
public import MirrorCache
import Synchronization

/// Writes the offline folder while the crawl runs: each saved response lands in its mapped
/// file at once (written to a temporary file and renamed, so an interrupted crawl leaves
/// only whole files), and `finish` writes `index.html` and the manifest.
public final class SiteWriter: Sendable {
    public let directory: String
    private let mapper: PathMapper
    private let manifest = Mutex(SiteManifest())

    public init(directory: String, mapper: PathMapper = PathMapper()) throws {
        self.directory = directory
        self.mapper = mapper
        try FileManager.default.createDirectory(atPath: directory + "/.mirror/tmp", withIntermediateDirectories: true)
        if let data = FileManager.default.contents(atPath: Self.manifestPath(directory)),
           let existing = try? JSONDecoder().decode(SiteManifest.self, from: data) {
            manifest.withLock { $0 = existing }  // a resumed crawl keeps what it wrote before
        }
    }

    static func manifestPath(_ directory: String) -> String { directory + "/.mirror/manifest.json" }

    /// Saves a response under its mapped path; returns that path, relative to the folder.
    @discardableResult
    public func write(url: String, response: CacheResponse) async throws -> String {
        let contentType = response.headers.first(name: "content-type")
        guard let path = mapper.path(for: url, contentType: contentType)?.string else {
            throw SiteError.unmappable(url)
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
        let digest = hasher.map { $0.finalize().map { String(format: "%02x", $0) }.joined() } ?? response.entry?.digest ?? ""
        manifest.withLock { manifest in
            manifest.resources[url] = SiteManifest.Resource(
                path: path, status: response.status, contentType: contentType, size: response.body.count,
                sha256: digest, etag: response.headers.first(name: "etag"),
                lastModified: response.headers.first(name: "last-modified"))
        }
        return path
    }

    /// Rewrites the pending HTML and CSS files on every core (each file is independent).
    private func rewriteLinks() throws {
        let snapshot = manifest.withLock { $0 }
        let pending = snapshot.resources.filter { !$0.value.rewritten && $0.value.kind != nil }.map { ($0.key, $0.value) }
        let failures = Mutex<[SiteError]>([])
        DispatchQueue.concurrentPerform(iterations: pending.count) { index in
            let (url, resource) = pending[index]
            do {
                try rewrite(url: url, resource: resource, manifest: snapshot)
                manifest.withLock { $0.resources[url]?.rewritten = true }
            } catch let error as SiteError {
                failures.withLock { $0.append(error) }
            } catch {
                failures.withLock { $0.append(.io(path: resource.path, message: "\(error)")) }
            }
        }
        if let failure = failures.withLock({ $0.first }) { throw failure }
    }

    private func rewrite(url: String, resource: SiteManifest.Resource, manifest snapshot: SiteManifest) throws {
        let path = directory + "/" + resource.path
        guard let kind = resource.kind, let original = FileManager.default.contents(atPath: path) else { return }
        let bytes = Array(original)
        let rewriter = LinkRewriter()
        let rewritten: [UInt8]
        switch kind {
        case .html:
            let charset = CharsetSniffer.charset(contentType: resource.contentType, prefix: Array(bytes.prefix(1024)))
            rewritten = rewriter.rewriteHTML(bytes, charset: charset, pageURL: url, pagePath: resource.path,
                                             target: snapshot.path(for:))
        case .css:
            rewritten = rewriter.rewriteCSS(bytes, fileURL: url, filePath: resource.path, target: snapshot.path(for:))
        }
        guard rewritten != bytes else { return }
        do {
            try Data(rewritten).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw SiteError.io(path: path, message: "\(error)")
        }
    }

    /// Records that `from` redirected to `to` (links to `from` will point at `to`'s file).
    public func redirect(from: String, to: String) {
        manifest.withLock { $0.redirects[from] = to }
    }

    /// Rewrites the links of every HTML and CSS file not rewritten yet (their bytes on disk are
    /// still the originals), then writes `index.html` (opening the first seed's file) and the manifest.
    /// A link to a saved URL becomes a relative path; a link to anything else becomes absolute.
    public func finish(seeds: [String]) throws {
        try rewriteLinks()
        let snapshot = manifest.withLock { $0 }
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
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(snapshot).write(to: URL(fileURLWithPath: Self.manifestPath(directory)), options: .atomic)
    }
}
