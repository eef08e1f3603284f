public import MirrorSite

/// Where a request leads in a mirror.
public enum SiteRoute: Equatable, Sendable {
    /// A saved file; `resource` is the URL's record (nil for the generated `index.html`).
    case file(path: String, resource: SiteManifest.Resource?)
    /// A redirect the crawl saw, a folder URL without its slash, or `/` to the start page.
    case redirect(status: Int, location: String)
    /// `/` of a mirror whose seeds are on several hosts: a page that links each seed (as served)
    /// and the search page, since no one site's start page stands for the others.
    case startPage(seeds: [String])
    /// Nothing saved there; `url` is the address the request would have had online, when known.
    case notFound(url: String?)
    case badRequest(String)
}
