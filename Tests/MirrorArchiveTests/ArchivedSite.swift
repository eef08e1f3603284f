import Foundation
import MirrorCache
import MirrorCrawlTesting
import MirrorTestSupport

/// A crawled site to archive: the `links` fixture (rewritten pages, kept originals, redirects,
/// `/` and `/index.html` with one body) plus responses the fixture lacks: gzip-encoded and
/// chunked with `Vary: Accept-Encoding`, and two more URLs with one body.
struct ArchivedSite {
    let origin: TestOrigin
    let harness = CrawlHarness()
    var root: String { harness.root }

    static let extraPaths = ["/encoded.txt", "/same-a.txt", "/same-b.txt"]

    /// Crawls the site from a new origin and runs `body` with it; then removes the crawl's folder
    /// and shuts the origin down, also when the crawl or `body` throws.
    static func with<T>(_ body: (ArchivedSite) async throws -> T) async throws -> T {
        try await TestOrigin.with(site: .named("links")) { origin in
            origin.route("/encoded.txt") { _ in
                var encoded = TestResponse.content(
                    String(repeating: "gzip and chunks\n", count: 400), type: "text/plain; charset=utf-8",
                    headers: [("Vary", "Accept-Encoding")])
                encoded.gzip = true
                encoded.chunkSize = 700
                return encoded
            }
            for path in ["/same-a.txt", "/same-b.txt"] {
                origin.route(path) { _ in .content("one body at two URLs\n", type: "text/plain") }
            }
            let site = ArchivedSite(origin: origin)
            defer { try? FileManager.default.removeItem(atPath: site.root) }
            let report = try await site.harness.crawl([origin.url("/")] + extraPaths.map(origin.url))
            guard report.failures.isEmpty else { throw CrawlFailed(failures: report.failures.map(\.url)) }
            return try await body(site)
        }
    }

    struct CrawlFailed: Error {
        let failures: [String]
    }

    func store() throws -> CacheStore { try CacheStore(directory: harness.cache) }
}
