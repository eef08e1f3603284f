public import MirrorSite

/// Where a request leads in a mirror.
public enum SiteRoute: Equatable, Sendable {
    /// A saved file; `resource` is the URL's record (nil for the generated `index.html`).
    case file(path: String, resource: SiteManifest.Resource?)
    /// A redirect the crawl saw, a folder URL without its slash, or `/` to the start page.
    case redirect(status: Int, location: String)
    /// Nothing saved there; `url` is the address the request would have had online, when known.
    case notFound(url: String?)
    case badRequest(String)
}
