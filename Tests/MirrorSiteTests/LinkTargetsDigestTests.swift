import Crypto
import MirrorCore
@testable import MirrorSite
import Testing

/// Folders keep the digest their pages were rewritten against (`rewrittenFor`): the digest must
/// stay what it was, or every page is rewritten again after an update.
@Suite("The link targets' digest")
struct LinkTargetsDigestTests {
    /// The digest as first defined: every URL of a resource or redirect with the file it leads
    /// to, sorted by the URL's bytes, each as URL, NUL, path, NUL.
    static func reference(_ manifest: SiteManifest) -> String {
        var targets: [String: String] = [:]
        for url in Array(manifest.resources.keys) + Array(manifest.redirects.keys) { targets[url] = manifest.path(for: url) }
        var hasher = SHA256()
        for (url, path) in targets.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
            hasher.update(data: Array(url.utf8) + [0] + Array(path.utf8) + [0])
        }
        return Hex.string(hasher.finalize())
    }

    @Test func isTheDigestFoldersHold() {
        var manifest = SiteManifest()
        #expect(manifest.linkTargetsDigest == Self.reference(manifest))
        let record = ResponseRecord(headers: [:], requestTime: 0, responseTime: 0, varyKey: "")
        for (number, url) in ["http://h/", "http://h/é", "http://h/Z", "http://h/a", "http://h/ä/b?q=1"].enumerated() {
            manifest.resources[url] = SiteManifest.Resource(
                path: "h/\(number).html", status: 200, contentType: "text/html", size: 1, sha256: "", etag: nil,
                lastModified: nil, record: record)
        }
        manifest.redirects["http://h/old"] = SiteManifest.Redirect(location: "http://h/a", status: 301, record: record)
        manifest.redirects["http://h/loop1"] = SiteManifest.Redirect(location: "http://h/loop2", status: 302, record: record)
        manifest.redirects["http://h/loop2"] = SiteManifest.Redirect(location: "http://h/loop1", status: 302, record: record)
        manifest.redirects["http://h/gone"] = SiteManifest.Redirect(location: "http://elsewhere/", status: 301, record: record)
        // A URL both saved and redirected (a later crawl saw it redirect).
        manifest.redirects["http://h/Z"] = SiteManifest.Redirect(location: "http://h/", status: 301, record: record)
        let digest = manifest.linkTargetsDigest
        #expect(digest == Self.reference(manifest))
        manifest.redirects["http://h/old"] = SiteManifest.Redirect(location: "http://h/é", status: 301, record: record)
        #expect(manifest.linkTargetsDigest != digest)
        #expect(manifest.linkTargetsDigest == Self.reference(manifest))
    }
}
