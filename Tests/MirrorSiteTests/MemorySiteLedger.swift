import MirrorLock
import MirrorSite

/// A `SiteLedger` in memory, for tests of `SiteWriter` alone (a crawl's is its `CrawlJournal`):
/// it keeps every record, and nothing survives the process.
final class MemorySiteLedger: SiteLedger {
    private struct Records {
        var resources: [String: SiteManifest.Resource] = [:]
        var redirects: [String: SiteManifest.Redirect] = [:]
    }

    private let records = Locked(Records())

    init() {}

    func resource(of url: String) -> SiteManifest.Resource? { records.withLock { $0.resources[url] } }

    func resources(after url: String?, limit: Int) -> [(url: String, resource: SiteManifest.Resource)] {
        records.withLock { records in
            records.resources.filter { entry in url.map { $0.utf8.lexicographicallyPrecedes(entry.key.utf8) } ?? true }
                .sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
                .prefix(limit).map { ($0.key, $0.value) }
        }
    }

    func redirects() -> [String: SiteManifest.Redirect] { records.withLock { $0.redirects } }

    func saved(_ url: String, _ resource: SiteManifest.Resource) { records.withLock { $0.resources[url] = resource } }

    func redirected(_ url: String, _ redirect: SiteManifest.Redirect) { records.withLock { $0.redirects[url] = redirect } }

    func flush() {}
}
