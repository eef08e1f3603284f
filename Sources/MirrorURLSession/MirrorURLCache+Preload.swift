import Foundation
import MirrorCache
public import MirrorCrawl

extension MirrorURLCache {
    /// Fetches `urls` and each page's requisites (its images, style sheets, scripts, fonts) into
    /// the cache, as the crawler fetches a page, so that a session or a web view finds them
    /// offline later: the hidden web view that preloaded content in the iOS caches this comes
    /// from. Follows links `depth` levels beyond the pages (0: the pages alone), on their hosts.
    /// What is stored fresh is not fetched again; robots.txt is not read, as for any user agent
    /// a person drives. Returns the crawl's report (pages, requisites, failures).
    @discardableResult
    public func preload(urls: [String], depth: Int = 0) async throws -> CrawlReport {
        var configuration = CrawlConfiguration(seeds: urls)
        configuration.maxDepth = depth
        configuration.obeyRobots = false
        configuration.searchIndex = false
        // The crawler's own engine over the same folder: bodies whole when returned.
        var engine = client.configuration
        engine.streamsBodies = false
        let crawlClient = CachingClient(store: client.store, transport: transport, configuration: engine)
        // The crawl's journal, for the time it runs.
        let journalFolder = FileManager.default.temporaryDirectory.appendingPathComponent("mirror-preload-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: journalFolder) }
        let journal = try CrawlJournal(folder: journalFolder, fresh: true)
        let crawler = Crawler(configuration: configuration, client: crawlClient, output: nil, journal: journal)
        return try await crawler.run(resume: false)
    }
}
