public import MirrorSearch
public import MirrorSite
public import NIOCore

/// The files of a mirror that `mirror serve` answers from: a folder on disk or a bundle.
/// Only the files the manifest lists are ever opened.
public protocol SiteFiles: Sendable {
    var manifest: SiteManifest { get }
    /// The file at `path`, when it can be opened quickly enough for an event loop (a folder's
    /// open is a few calls on metadata the kernel has cached, as nginx makes them); nil
    /// otherwise, and the server calls `open` on its I/O threads.
    func openQuickly(_ path: String, range: Range<Int>) throws -> SiteFile?
    /// The file at `path` (relative, as the manifest lists it), to send the bytes in `range`
    /// of (within the file); nil when there is no such file.
    func open(_ path: String, range: Range<Int>) throws -> SiteFile?
    /// The mirror's search index: a folder's brought up to date, a bundle's read from it, or
    /// made from the pages when the mirror has none.
    func searchIndex() throws(SearchError) -> SearchIndex
}

extension SiteFiles {
    public func openQuickly(_ path: String, range: Range<Int>) throws -> SiteFile? { nil }

    public func searchIndex() throws(SearchError) -> SearchIndex {
        throw SearchError.unusable("this mirror cannot be searched")
    }
}

/// A file as `SiteFiles` opened it.
public enum SiteFile: Sendable {
    /// A plain file on disk, for the kernel to send from, starting at `start` in the
    /// descriptor's file; whoever holds it closes it.
    case descriptor(NIOFileHandle, fileSize: Int, start: Int = 0)
    /// A range of a file read piece by piece.
    case reader(any SiteFileReader)

    /// The size of the whole file, as found.
    var fileSize: Int {
        switch self {
        case .descriptor(_, let fileSize, _): fileSize
        case .reader(let reader): reader.fileSize
        }
    }

    /// Releases the file, when it is not to be sent after all.
    func close() {
        switch self {
        case .descriptor(let handle, _, _): try? handle.close()
        case .reader(let reader): reader.close()
        }
    }
}

/// The bytes of a range of one file, handed out in order, in pieces of at most
/// `SiteFileReader.pieceSize`. One caller at a time; calls block, and the server makes them
/// on its I/O threads.
public protocol SiteFileReader: Sendable {
    /// The size of the whole file, as found in the bundle.
    var fileSize: Int { get }
    /// The next piece; nil after the last.
    func next() throws -> ByteBuffer?
    /// Releases the file; called once, when the response is done or abandoned.
    func close()
}

extension SiteFileReader {
    /// The most bytes one `next()` hands out.
    public static var pieceSize: Int { 256 << 10 }
}
