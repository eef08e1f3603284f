import MirrorBundle
public import MirrorSite
import NIOCore

/// A bundle's files, read in place (`BundleArchive`): checked once when opened, never unpacked.
public final class BundleFiles: SiteFiles {
    public let manifest: SiteManifest
    private let archive: BundleArchive

    /// Opens and checks the bundle at `path`.
    /// - Throws: the `BundleError` that `mirror unpack` would give for it.
    public init(bundle path: String) throws {
        // The server keeps hot files itself; the archive's own cache only holds files read whole.
        archive = try BundleArchive(path: path, cacheCapacity: 4 << 20)
        manifest = archive.manifest
    }

    public func open(_ path: String, range: Range<Int>) throws -> SiteFile? {
        guard path != SiteManifest.path, let file = archive.files[path],
              let reader = try archive.reader(for: path, range: range) else { return nil }
        return .reader(BundleFileReader(reader: reader, fileSize: file.size))
    }
}

/// A range of a bundle's file, inflated as it is read.
struct BundleFileReader: SiteFileReader {
    let reader: BundleArchive.Reader
    let fileSize: Int

    func next() throws -> ByteBuffer? {
        try reader.next().map { ByteBuffer(bytes: $0) }
    }

    func close() {}
}
