import Foundation
public import MirrorCrawl
public import MirrorCredentials

/// Loads pages in a browser for a worker of a shared crawl, and records what each became in
/// `mirror_renders`, so that every worker makes the folder from the same rendering
/// (`RecordedRenderer`) without loading the page again.
public struct RecordingRenderer: PageRenderer {
    private let browser: any PageRenderer
    private let crawl: SharedCrawl

    public init(browser: any PageRenderer, crawl: SharedCrawl) {
        self.browser = browser
        self.crawl = crawl
    }

    /// Loads `url` in the browser with the crawl's `cookies` (which the record leaves out).
    public func render(_ url: String, cookies: CookieJar?, fetch: @escaping PageFetch) async throws -> RenderedPage {
        let page = try await browser.render(url, cookies: cookies, fetch: fetch)
        let encoded = String(decoding: try JSONEncoder().encode(page), as: UTF8.self)
        try await crawl.database.query(
            """
            INSERT INTO mirror_renders (crawl, url, page) VALUES (\(crawl.id), \(url), \(encoded))
            ON CONFLICT (crawl, url) DO UPDATE SET page = excluded.page
            """)
        return page
    }

    public func compareOffline(_ fileURL: String, with live: [UInt8]) async throws -> ScreenComparison? {
        try await browser.compareOffline(fileURL, with: live)
    }

    public func close() async {
        await browser.close()
    }
}
