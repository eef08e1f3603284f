public import MirrorSite
public import NIOCore

/// The files of a mirror that `mirror serve` answers from: a folder on disk or a bundle.
/// Only the files the manifest lists are ever opened. Calls block; the server makes them on
/// its I/O threads.
public protocol SiteFiles: Sendable {
    var manifest: SiteManifest { get }
    /// The file at `path` (relative, as the manifest lists it); nil when there is none.
    func open(_ path: String) throws -> (any SiteFileReader)?
}

/// An open file of a mirror, read in pieces.
public protocol SiteFileReader: Sendable {
    var size: Int { get }
    /// Up to `count` bytes from `offset` (fewer only at the end of the file).
    func read(at offset: Int, count: Int) throws -> ByteBuffer
    /// Releases the file; called once, after the last read.
    func close()
}
