import MirrorCache
import MirrorCore
import MirrorSite

/// Saves in the folder what another worker of a shared crawl made of a URL: the response it
/// received, saved as this crawl would have saved it (a redirect, or a page and the links and
/// text the folder's finish needs), with nothing queued or counted. Not for `--browser`
/// crawls, whose pages are saved as the browser made them.
struct ResponseAdopter: Sendable {
    let output: SiteWriter?
    let store: CacheStore
    let scope: ScopeRules
    let links: LinkReader

    func adopt(_ url: String, response: CacheResponse) async throws {
        guard let parts = URLParts(url) else { return }
        if (300..<400).contains(response.status), let location = response.headers.first(name: "location") {
            guard let normalized = scope.resolve(location, against: parts) else { return }
            try output?.redirect(from: url, to: normalized, response: CrawledResponse(response, store: store))
            return
        }
        guard (200..<300).contains(response.status) else { return }
        _ = try await output?.write(url: url, response: CrawledResponse(response, store: store))
        _ = try links.pageLinks(in: response, url: parts, contentType: response.headers.first(name: "content-type"))
    }
}
