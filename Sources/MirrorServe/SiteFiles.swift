public import MirrorSite
public import NIOCore

/// The files of a mirror that `mirror serve` answers from: a folder on disk or a bundle.
/// Only the files the manifest lists are ever opened. Calls block; the server makes them on
/// its I/O threads.
public protocol SiteFiles: Sendable {
    var manifest: SiteManifest { get }
    /// A reader of the bytes in `range` of the file at `path` (relative, as the manifest lists
    /// it; `range` within the file); nil when there is no such file.
    func open(_ path: String, range: Range<Int>) throws -> (any SiteFileReader)?
}

/// The bytes of a range of one file, handed out in order, in pieces of at most
/// `SiteFileReader.pieceSize`. One caller at a time.
public protocol SiteFileReader: Sendable {
    /// The size of the whole file, as found on disk or in the bundle.
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
