import MirrorCache
import MirrorCrawl
import MirrorSite

/// The whole folder of a `--browser` shared crawl, made by a worker once the crawl is done:
/// every response of the crawl brought into this worker's cache, then an offline crawl of it,
/// each page rendered as its worker's browser recorded it, as a crawl of one process would have
/// made it.
struct RenderedFolder: Sendable {
    let crawl: SharedCrawl
    let parts: SharedWorker.Parts

    /// Makes the whole folder in `folder`.
    func make(in folder: String) async throws {
        parts.events?(.phase("bringing the shared crawl's responses into the cache"))
        let brought = try await SharedResponses(crawl: crawl, store: parts.store).bringAllIn()
        parts.events?(.phase("making the folder from the cache (\(brought) responses brought in)"))
        var local = parts.configuration
        local.delay = nil
        local.maxDuration = nil
        local.perHost = max(local.perHost, local.concurrency)
        let journal: CrawlJournal
        let writer: SiteWriter
        do {
            journal = try CrawlJournal(folder: folder, fresh: true)
            writer = try SiteWriter(directory: folder, ledger: journal.ledger)
        } catch {
            throw SharedWorker.FolderError.cannotOpen(folder: folder, error)
        }
        var offline = parts.clientConfiguration
        offline.mode = .offline
        // Offline: the transport is never used.
        let client = CachingClient(store: parts.store, transport: parts.transport, configuration: offline)
        let crawler = Crawler(
            configuration: local, client: client, output: writer, journal: journal,
            renderer: RecordedRenderer(crawl: crawl), searchIndexer: parts.searchIndexer,
            credentials: parts.credentials, events: parts.events)
        let result = await Task { try await crawler.run(resume: false) }.result
        if case .failure(let error as SiteError) = result { throw SharedWorker.FolderError.cannotWrite(folder: folder, error) }
        _ = try result.get()
    }
}
