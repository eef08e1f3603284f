public import MirrorHTML
public import MirrorSite

/// The search index a crawl makes as it finishes its folder (`SearchIndexBuilder.update`).
public struct FolderSearchIndexer: SearchIndexer {
    public init() {}

    public func update(
        folder: String, slices: () -> (() throws -> [Page]), knownTexts: @Sendable ([Page]) -> [HTMLText?]
    ) throws -> SiteManifest.FileDigest {
        try SearchIndexBuilder.update(folder: folder, slices: slices, knownTexts: knownTexts)
    }
}
