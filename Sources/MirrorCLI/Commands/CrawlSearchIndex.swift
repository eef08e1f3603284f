import MirrorCrawl
import MirrorHTML
import MirrorSearch
import MirrorSite

/// The crawl's search index, made by `MirrorSearch` as the crawl finishes its folder.
struct CrawlSearchIndex: SearchIndexer {
    func update(folder: String, slices: () -> (() throws -> [Page]), knownText: (Page) -> HTMLText?) throws -> SiteManifest.FileDigest {
        try SearchIndexBuilder.update(folder: folder, slices: slices, knownText: knownText)
    }
}
