import Foundation
public import MirrorSite

/// The folder's `SiteLedger` in the journal: every saved resource and redirect.
///
/// A record may name a cache entry whose group has not committed yet (a saved file is a link
/// to a stored body): the cache's entry log has it, and the next store to open the cache after
/// a kill indexes it (`CacheStore`), so no record outlives the entry it names.
public struct JournalLedger: SiteLedger {
    let log: JournalLog

    public func resource(of url: String) throws -> SiteManifest.Resource? {
        let stored = try log.latest(
            pending: { record in
                if case .resource(url, let stored) = record { stored } else { nil }
            },
            committed: { database in
                try database.statement("SELECT json FROM resources WHERE url = ?").firstRow([.text(url)]) { $0.blob(0) }
            })
        return try stored.map { try Self.resource(url, $0) }
    }

    public func resources(after url: String?, limit: Int) throws -> [(url: String, resource: SiteManifest.Resource)] {
        let rows = try log.committed { database in
            try database.statement("SELECT url, json FROM resources WHERE url > ? ORDER BY url LIMIT ?")
                .rows([.text(url ?? ""), .integer(Int64(limit))]) { ($0.string(0), $0.blob(1)) }
        }
        return try rows.map { url, stored in (url, try Self.resource(url, stored)) }
    }

    public func redirects() throws -> [String: SiteManifest.Redirect] {
        let rows = try log.committed { database in
            try database.statement("SELECT url, json FROM redirects").rows([], { ($0.string(0), $0.blob(1)) })
        }
        let decoder = JSONDecoder()
        var redirects: [String: SiteManifest.Redirect] = [:]
        for (url, json) in rows { redirects[url] = try decoder.decode(SiteManifest.Redirect.self, from: Data(json)) }
        return redirects
    }

    public func saved(_ url: String, _ resource: SiteManifest.Resource) throws {
        try log.append(.resource(url: url, stored: StoredResource.encode(resource)))
    }

    public func redirected(_ url: String, _ redirect: SiteManifest.Redirect) throws {
        try log.append(.redirect(url: url, json: Array(try JSONEncoder().encode(redirect))))
    }

    public func flush() throws {
        try log.flush()
    }

    /// A resource row's value: `StoredResource`'s form, or JSON in rows of older versions.
    private static func resource(_ url: String, _ stored: [UInt8]) throws -> SiteManifest.Resource {
        if stored.first == UInt8(ascii: "{") { return try JSONDecoder().decode(SiteManifest.Resource.self, from: Data(stored)) }
        guard let resource = StoredResource.decode(stored) else {
            throw StoredResource.isOfLaterVersion(stored)
                ? CrawlJournalError.ofLaterVersion(url: url) : CrawlJournalError.unreadable(url: url)
        }
        return resource
    }
}
