import MirrorCrawl
import MirrorHTML
import MirrorSearch
import MirrorSite

/// The harness's crawls make the folder's search index as `mirror crawl` does.
struct HarnessSearchIndex: SearchIndexer {
    func update(folder: String, slices: () -> (() throws -> [Page]), knownText: (Page) -> HTMLText?) throws -> SiteManifest.FileDigest {
        try SearchIndexBuilder.update(folder: folder, slices: slices, knownText: knownText)
    }
}
