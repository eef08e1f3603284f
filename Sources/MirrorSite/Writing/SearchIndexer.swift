public import MirrorHTML

/// Makes a finished folder's search index (`mirror search`): `MirrorSearch`'s `FolderSearchIndexer`,
/// which the crawl's caller gives it, so that the crawler needs no search engine of its own.
public protocol SearchIndexer: Sendable {
    typealias Page = (url: String, resource: SiteManifest.Resource)

    /// Brings `folder`'s index up to date with the pages `slices` hands over (a reader of every
    /// page, slice by slice in the byte order of their URLs, then empty slices); returns the
    /// index file's digest.
    /// - Parameter knownTexts: the text of each of a run of pages (in URL order) when the crawl
    ///   kept it; the others are read from their file.
    func update(folder: String, slices: () -> (() throws -> [Page]), knownTexts: @Sendable ([Page]) -> [HTMLText?]) throws
        -> SiteManifest.FileDigest
}
