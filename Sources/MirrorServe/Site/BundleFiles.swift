import MirrorBundle
public import MirrorSearch
public import MirrorSite
import NIOCore

/// A bundle's files, read in place (`BundleArchive`): checked once when opened, never unpacked.
/// A file asked for whole is copied as it is inflated (`InflatedCopies`), and sent from the
/// copy by the kernel after that.
public final class BundleFiles: SiteFiles {
    public let manifest: SiteManifest
    private let archive: BundleArchive
    private let copies: InflatedCopies?

    /// Opens and checks the bundle at `path`.
    /// - Parameters:
    ///   - copyDirectory: where the nameless file of inflated copies is made.
    ///   - copyLimit: the most bytes of copies; 0 inflates every file for every request.
    /// - Throws: the `BundleError` that `mirror unpack` would give for it.
    public init(bundle path: String, copyDirectory: String, copyLimit: Int) throws {
        copies = InflatedCopies(directory: copyDirectory, limit: copyLimit)
        // Without copies, the archive keeps small files inflated in memory.
        archive = try BundleArchive(path: path, cacheCapacity: copies == nil ? 4 << 20 : 0)
        manifest = archive.manifest
    }

    public func openQuickly(_ path: String, range _: Range<Int>) -> SiteFile? {
        guard path != SiteManifest.path, let file = archive.files[path] else { return nil }
        return copy(of: path, size: file.size)
    }

    public func open(_ path: String, range: Range<Int>) throws -> SiteFile? {
        guard path != SiteManifest.path, let file = archive.files[path] else { return nil }
        if let copied = copy(of: path, size: file.size) { return copied }
        let copy = range == 0..<file.size ? copies?.startCopy(of: path, size: file.size) : nil
        do {
            guard let reader = try archive.reader(for: path, range: range) else {
                copy?.abandon()
                return nil
            }
            return .reader(BundleFileReader(reader: reader, fileSize: file.size, copy: copy))
        } catch {
            copy?.abandon()
            throw error
        }
    }

    public func searchIndex() throws(SearchError) -> SearchIndex {
        try SearchIndex.open(archive: archive)
    }

    private func copy(of path: String, size: Int) -> SiteFile? {
        copies?.open(path).map { .descriptor($0.handle, fileSize: size, start: $0.start) }
    }
}

/// A range of a bundle's file, inflated as it is read (and copied, when it is the whole file).
struct BundleFileReader: SiteFileReader {
    let reader: BundleArchive.Reader
    let fileSize: Int
    let copy: InflatedCopies.Copy?

    func next() throws -> ByteBuffer? {
        guard let piece = try reader.next().map({ ByteBuffer(bytes: $0) }) else { return nil }
        copy?.append(piece)
        return piece
    }

    func close() {
        copy?.abandon()
    }
}
