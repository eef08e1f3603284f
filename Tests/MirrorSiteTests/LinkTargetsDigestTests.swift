import Crypto
import MirrorCore
import Testing

@testable import MirrorSite

/// Folders keep the digest their pages were rewritten against (`rewrittenFor`): the digest must
/// stay what it was, or every page is rewritten again after an update.
@Suite("The link targets' digest")
struct LinkTargetsDigestTests {
    /// The digest as first defined: every URL of a resource or redirect with the file it leads
    /// to (following redirects), sorted by the URL's bytes, each as URL, NUL, path, NUL.
    static func reference(saved: [String: String], redirects: [String: SiteManifest.Redirect]) -> String {
        func path(for url: String) -> String? {
            var current = url
            for _ in 0...10 {
                if let path = saved[current] { return path }
                guard let next = redirects[current]?.location else { return nil }
                current = next
            }
            return nil
        }
        var targets: [String: String] = [:]
        for url in Array(saved.keys) + Array(redirects.keys) { targets[url] = path(for: url) }
        var hasher = SHA256()
        for (url, path) in targets.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
            hasher.update(data: Array(url.utf8) + [0] + Array(path.utf8) + [0])
        }
        return Hex.string(hasher.finalize())
    }

    @Test func isTheDigestFoldersHold() {
        var registry = PathRegistry()
        var saved: [String: String] = [:]
        var redirects: [String: SiteManifest.Redirect] = [:]
        #expect(LinkTargets(registry: registry, redirects: redirects).digest == Self.reference(saved: saved, redirects: redirects))
        let record = ResponseRecord(headers: [:], requestTime: 0, responseTime: 0, varyKey: "")
        for (number, url) in ["http://h/", "http://h/é", "http://h/Z", "http://h/a", "http://h/ä/b?q=1"].enumerated() {
            let path = LocalPath(string: "h/\(number).html", components: ["h", "\(number).html"])
            saved[url] = registry.assign(url: url, preferred: path, sha256: "").string
        }
        redirects["http://h/old"] = SiteManifest.Redirect(location: "http://h/a", status: 301, record: record)
        redirects["http://h/loop1"] = SiteManifest.Redirect(location: "http://h/loop2", status: 302, record: record)
        redirects["http://h/loop2"] = SiteManifest.Redirect(location: "http://h/loop1", status: 302, record: record)
        redirects["http://h/gone"] = SiteManifest.Redirect(location: "http://elsewhere/", status: 301, record: record)
        // A URL both saved and redirected (a later crawl saw it redirect).
        redirects["http://h/Z"] = SiteManifest.Redirect(location: "http://h/", status: 301, record: record)
        let digest = LinkTargets(registry: registry, redirects: redirects).digest
        #expect(saved["http://h/a"] == "h/3.html")
        #expect(digest == Self.reference(saved: saved, redirects: redirects))
        redirects["http://h/old"] = SiteManifest.Redirect(location: "http://h/é", status: 301, record: record)
        let changed = LinkTargets(registry: registry, redirects: redirects).digest
        #expect(changed != digest)
        #expect(changed == Self.reference(saved: saved, redirects: redirects))
    }
}
