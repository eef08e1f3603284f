import MirrorBrowser
import MirrorCrawl
import MirrorCrawlTesting

extension BrowserTesting {
    /// Crawls `seeds` into `harness` with `renderer`, then closes the renderer and runs `stop`
    /// (shutting down what else the test started), whether the crawl ended or threw; returns
    /// the crawl's report or rethrows its error.
    static func crawl(
        _ seeds: [String], in harness: CrawlHarness, renderer: ChromiumRenderer,
        _ configure: (inout CrawlConfiguration) -> Void = { _ in },
        thenStop stop: () async throws -> Void
    ) async throws -> CrawlReport {
        let outcome: Result<CrawlReport, any Error>
        do {
            outcome = .success(try await harness.crawl(seeds, renderer: renderer, configure))
        } catch {
            outcome = .failure(error)
        }
        await renderer.close()
        try await stop()
        return try outcome.get()
    }
}
