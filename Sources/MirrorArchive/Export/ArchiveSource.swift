import Foundation
public import MirrorCache
import MirrorCore
import MirrorSite

/// Where an export's responses come from: the cache, or a mirrored folder (its manifest's
/// records, with the original bodies of rewritten files, not the rewritten ones).
public struct ArchiveSource {
    private enum Kind {
        case cache(CacheStore)
        /// A folder written by `mirror crawl`, with its manifest read.
        case folder(String, SiteManifest)
    }

    private let kind: Kind

    /// Every response stored in `store`.
    public static func cache(_ store: CacheStore) -> ArchiveSource {
        ArchiveSource(kind: .cache(store))
    }

    /// The mirrored folder at `path`; throws when it has no readable manifest.
    public static func folder(_ path: String) throws -> ArchiveSource {
        let manifestPath = path + "/.mirror/manifest.json"
        guard let data = FileManager.default.contents(atPath: manifestPath) else {
            throw ArchiveError.notAMirrorFolder(path: path, reason: "no .mirror/manifest.json")
        }
        let manifest: SiteManifest
        do {
            manifest = try JSONDecoder().decode(SiteManifest.self, from: data)
        } catch {
            throw ArchiveError.notAMirrorFolder(path: path, reason: ".mirror/manifest.json cannot be read: \(error)")
        }
        guard manifest.version == SiteManifest.currentVersion else {
            throw ArchiveError.notAMirrorFolder(
                path: path,
                reason: "manifest version \(manifest.version); this mirror reads "
                    + "version \(SiteManifest.currentVersion) (re-crawl or update mirror)")
        }
        return ArchiveSource(kind: .folder(path, manifest))
    }

    /// The crawl's seeds, when the source knows them.
    var seeds: [String] {
        if case .folder(_, let manifest) = kind { return manifest.seeds ?? [] }
        return []
    }

    /// The bodies more than one response has (only those can become revisit records).
    func sharedBodies() throws -> Set<String> {
        switch kind {
        case .cache(let store):
            return try store.sharedBodyDigests()
        case .folder(_, let manifest):
            var counts: [String: Int] = [:]
            for resource in manifest.resources.values { counts[resource.sha256, default: 0] += 1 }
            return Set(counts.filter { $0.value > 1 }.keys)
        }
    }

    /// Calls `body` with every response in URL order; a cache is read a page at a time.
    func forEachResponse(_ body: (ArchivedResponse) throws -> Void) throws {
        switch kind {
        case .cache(let store):
            var last: CacheEntry?
            while true {
                let page = try store.entries(after: last, limit: 512)
                for entry in page {
                    try body(
                        ArchivedResponse(
                            url: entry.url, status: entry.status, headers: entry.headers, requestTime: entry.requestTime,
                            responseTime: entry.responseTime, varyKey: entry.shareableVaryKey, sha256: entry.digest, size: entry.size,
                            body: .cache(store, entry)))
                }
                guard let next = page.last else { return }
                last = next
            }
        case .folder(let folder, let manifest):
            var responses: [(String, ArchivedResponse)] = manifest.resources.map { url, resource in
                let file = resource.file == nil ? resource.path : SiteManifest.originalPath(sha256: resource.sha256)
                return (
                    url,
                    ArchivedResponse(
                        url: url, status: resource.status, headers: resource.record.httpHeaders,
                        requestTime: resource.record.requestTime, responseTime: resource.record.responseTime,
                        varyKey: resource.record.varyKey, sha256: resource.sha256, size: resource.size,
                        body: .file(folder + "/" + file))
                )
            }
            responses += manifest.redirects.map { url, redirect in
                (
                    url,
                    ArchivedResponse(
                        url: url, status: redirect.status, headers: redirect.record.httpHeaders,
                        requestTime: redirect.record.requestTime, responseTime: redirect.record.responseTime,
                        varyKey: redirect.record.varyKey, sha256: ArchivedResponse.emptySHA256, size: 0, body: .empty)
                )
            }
            for (_, response) in responses.sorted(by: { $0.0.bytesPrecede($1.0) }) {
                try body(response)
            }
        }
    }
}
