public import MirrorBundle
import MirrorSite

extension SearchIndex {
    /// The index of a bundle, read into memory (made from its pages when it holds none, as a
    /// bundle packed from a crawl made with `--no-index`); result pages are read from it,
    /// each checked against the manifest.
    public static func open(bundle: BundleArchive) throws(SearchError) -> SearchIndex {
        let read: @Sendable (String) -> [UInt8]? = { path in (try? bundle.verifiedContents(of: path)) ?? nil }
        let bytes: [UInt8]?
        do {
            bytes = bundle.manifest.search == nil ? nil : try bundle.verifiedContents(of: SiteManifest.searchIndexPath)
        } catch {
            throw SearchError.unusable("\(bundle.path): \(error)")
        }
        guard let bytes else { return try make(pages: bundle.manifest.resources.map { ($0.key, $0.value) }, name: bundle.path, page: read) }
        return try open(bytes: bytes, name: "\(bundle.path): \(SiteManifest.searchIndexPath)", page: read)
    }
}
