public import MirrorBundle
import MirrorSite

extension SearchIndex {
    /// The index a bundle holds, read into memory, its results' pages read from the bundle;
    /// nil when it holds none.
    public static func open(bundle: any BundleReading) throws(SearchError) -> SearchIndex? {
        let bytes: [UInt8]?
        do {
            bytes = try bundle.verifiedContents(of: path)
        } catch {
            throw SearchError.unusable("\(bundle.path): \(error)")
        }
        guard let bytes else { return nil }
        return try open(bytes: bytes, name: "\(bundle.path): \(path)") { (try? bundle.verifiedContents(of: $0)) ?? nil }
    }

    /// The index of a bundle checked whole: the one it holds, or one made now from its pages (a
    /// bundle packed from a crawl made with `--no-index`).
    public static func open(archive: BundleArchive) throws(SearchError) -> SearchIndex {
        if let index = try open(bundle: archive) { return index }
        return try make(pages: archive.manifest.resources.map { ($0.key, $0.value) }, name: archive.path) {
            (try? archive.verifiedContents(of: $0)) ?? nil
        }
    }
}
