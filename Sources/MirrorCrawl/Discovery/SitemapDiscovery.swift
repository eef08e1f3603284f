import MirrorCache
import MirrorCompression
import MirrorCore
import MirrorHTML

/// With --sitemaps: the pages listed by the seeds' sitemaps (robots.txt `Sitemap:` lines and
/// `/sitemap.xml`, sitemap indexes followed, `.gz` read), offered as links from the root.
struct SitemapDiscovery: Sendable {
    let seeds: [String]
    let robots: RobotsCache
    let sender: RequestSender
    let scope: ScopeRules
    let offers: FrontierOffers

    func discover() async throws {
        var pending: [String] = []
        var origins = Set<String>()
        for seed in seeds.compactMap(URLParts.init) where origins.insert(seed.origin).inserted {
            pending += await robots.rules(for: seed, send: sender.send).rules.sitemaps + ["\(seed.origin)/sitemap.xml"]
        }
        var visited = Set<String>()
        var found: [CrawlItem] = []
        while let next = pending.popLast(), visited.count < 1000 {
            guard let parts = URLParts(next), visited.insert(parts.normalized).inserted,
                let response = try? await sender.send(CacheRequest(url: parts.normalized)),
                (200..<300).contains(response.status), var bytes = try? response.body.collect(limit: 64 << 20)
            else { continue }
            if bytes.starts(with: [0x1f, 0x8b]) {
                guard let inflated = try? GzipDecoder.decompress(bytes, limit: 256 << 20) else { continue }
                bytes = inflated
            }
            let entries = SitemapParser.entries(in: bytes)
            pending += entries.sitemaps
            for page in entries.pages {
                guard let normalized = scope.resolve(page, against: parts) else { continue }
                found.append(CrawlItem(url: normalized, depth: 1, role: .page, hops: 0, referrer: parts.normalized))
            }
        }
        try await offers.offer(found)
    }
}
