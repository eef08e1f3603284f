public import MirrorBundle
import MirrorSQLite
import MirrorSite

extension SearchIndex {
    /// The index a bundle holds, queried in place: SQLite reads the pages a query needs through
    /// the seek table, which inflates and checks only the gzip members holding them. The
    /// results' pages are read from the bundle. Nil when it holds no index.
    public static func open(bundle: SeekableBundle) throws(SearchError) -> SearchIndex? {
        guard let reader = bundle.reader(of: path) else { return nil }
        let name = "\(bundle.path): \(path)"
        return try open(name: name, page: { (try? bundle.verifiedContents(of: $0)) ?? nil }) { () throws(SQLiteError) in
            try SQLiteDatabase(size: reader.size, name: name) { buffer, offset in try reader.read(into: buffer, at: offset) }
        }
    }

    /// The index of a bundle checked whole: the one it holds, read into memory, or one made now
    /// from its pages (a bundle packed from a crawl made with `--no-index`).
    public static func open(archive: BundleArchive) throws(SearchError) -> SearchIndex {
        let page: @Sendable (String) -> [UInt8]? = { (try? archive.verifiedContents(of: $0)) ?? nil }
        let bytes: [UInt8]?
        do {
            bytes = try archive.verifiedContents(of: path)
        } catch {
            throw SearchError.unusable("\(archive.path): \(error)")
        }
        guard let bytes else {
            return try make(pages: archive.manifest.resources.map { ($0.key, $0.value) }, name: archive.path, page: page)
        }
        let name = "\(archive.path): \(path)"
        return try open(name: name, page: page) { () throws(SQLiteError) in try SQLiteDatabase(copyOf: bytes, name: name) }
    }
}
