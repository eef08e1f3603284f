import Crypto
import MirrorCore

/// Where the folder's links lead: the file of every saved URL (its `PathRegistry` path),
/// directly or through the redirects recorded. A value: finishing shares one among the threads
/// rewriting, without a lock.
struct LinkTargets: Sendable {
    let registry: PathRegistry
    let redirects: [String: SiteManifest.Redirect]

    /// The file a URL ended up in, following redirects (at most 10 hops, loops give nil).
    func path(for url: String) -> String? { Self.path(for: url, redirects: redirects, saved: registry.path(of:)) }

    /// The file `url` ended up in: `saved`'s path of it or of the URL it redirects to, and so on
    /// (at most 10 hops, loops give nil).
    static func path(
        for url: String, redirects: [String: SiteManifest.Redirect], saved: (String) -> String?
    ) -> String? {
        var current = url
        for _ in 0...10 {
            if let path = saved(current) { return path }
            guard let next = redirects[current]?.location else { return nil }
            current = next
        }
        return nil
    }

    /// A digest of every URL with the file it leads to (directly or through a redirect), in the
    /// order of the URLs' bytes, each as URL, NUL, path, NUL: what rewritten links depend on, so
    /// they are right while it stays the same (folders keep it as `rewrittenFor`, so it must stay
    /// as first defined). Hashed in place: at 100,000 URLs a dictionary of them and two arrays
    /// per URL took half a second before the rewriting could start.
    var digest: String {
        var hasher = SHA256()
        var urls = Array(registry.urls)
        urls += redirects.keys.filter { registry.path(of: $0) == nil }
        urls.sort { $0.bytesPrecede($1) }
        func update(_ text: String) {
            var text = text
            text.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
            hasher.update(data: [0])
        }
        for url in urls {
            guard let path = path(for: url) else { continue }
            update(url)
            update(path)
        }
        return Hex.string(hasher.finalize())
    }
}
