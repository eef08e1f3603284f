import MirrorCache
import MirrorCore
import MirrorSite

/// Finishes the crawl's folder: rewrites its links and writes its start page, manifest and
/// search index, while the cache flushes to disk.
struct FolderFinisher: Sendable {
    let store: CacheStore
    /// The folder; nil for a crawl that only fetches.
    let output: SiteWriter?
    let journal: CrawlJournal
    let links: LinkReader
    let seeds: [String]
    /// Makes the folder's search index; nil for none (`--no-index`, or no indexer given).
    let searchIndexer: (any SearchIndexer)?
    let events: (@Sendable (CrawlEvent) -> Void)?

    func finish() async throws {
        // The cache's flush to disk waits on I/O while the folder's rewriting is CPU work: both at
        // once. The flush is for the cache; the folder is rebuilt from it (or by --resume) if a
        // power loss takes its last writes.
        let flush = Task.detached { [store] in try? store.synchronize() }
        if output != nil { events?(.phase("finishing the folder (links, index.html, manifest)")) }
        let finished = Result {
            try journal.flush()
            let known: SiteWriter.KnownReferences = { [journal, links] pages in Self.kept(pages, links: links, journal.pages.references) }
            let index = searchIndexer.flatMap { indexer in output.map { indexing(folder: $0.directory, with: indexer) } }
            try output?.finish(seeds: seeds.compactMap(URLNormalizer.normalize), knownReferences: known, searchIndex: index)
        }
        await flush.value
        try finished.get()
    }

    /// What makes the folder's search index from the ledger's pages, with the text the journal
    /// kept when each body was parsed, read a run of pages at a time (a page saved as its browser
    /// snapshot, or parsed by a crawl without the index, is read from its file).
    private func indexing(folder: String, with indexer: any SearchIndexer) -> @Sendable (any SiteLedger) throws -> SiteManifest.FileDigest {
        let (journal, events, links) = (journal, events, links)
        return { ledger in
            events?(.phase("indexing the pages for mirror search"))
            return try indexer.update(
                folder: folder, slices: { ledger.resourceSlices() },
                knownTexts: { pages in Self.kept(pages, links: links, journal.pages.texts) })
        }
    }

    /// What `lookup` finds in the journal for each page under the key of its body; nil for each
    /// when the journal cannot be read, and the pages are then read from their files.
    private static func kept<T>(
        _ pages: [SearchIndexer.Page], links: LinkReader, _ lookup: ([(url: String, key: String)]) throws -> [T?]
    ) -> [T?] {
        let keyed = pages.map { ($0.url, links.pageKey(digest: $0.resource.sha256, contentType: $0.resource.contentType)) }
        return (try? lookup(keyed)) ?? Array(repeating: nil, count: pages.count)
    }
}
