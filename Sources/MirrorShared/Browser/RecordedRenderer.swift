import Foundation
public import MirrorCrawl
public import MirrorCredentials

/// What the workers of a shared crawl recorded of each page they loaded in the browser
/// (`RecordingRenderer`), handed back as if the page were loaded again: the folder a worker
/// makes at the end then matches the rendering the crawl saw.
public struct RecordedRenderer: PageRenderer {
    private let crawl: SharedCrawl

    public init(crawl: SharedCrawl) {
        self.crawl = crawl
    }

    /// The recorded page; `cookies` are not used (no page loads, so none is set).
    public func render(_ url: String, cookies: CookieJar?, fetch: @escaping PageFetch) async throws -> RenderedPage {
        let pages = try await crawl.database.query("SELECT page FROM mirror_renders WHERE crawl = \(crawl.id) AND url = \(url)") {
            try $0.decode(String.self)
        }
        guard let page = pages.first else { throw SharedCrawlError.notRendered(url: url) }
        return try JSONDecoder().decode(RenderedPage.self, from: Data(page.utf8))
    }

    public func close() async {}
}
