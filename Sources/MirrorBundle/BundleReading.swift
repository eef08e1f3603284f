/// A bundle whose files are read whole, each checked against its digest: `BundleArchive`
/// checked every file when it opened, `SeekableBundle` checks each as it reads it.
public protocol BundleReading: Sendable {
    /// The bundle file.
    var path: String { get }
    /// The whole of the file at `path` (relative, as the manifest lists it), checked; nil when
    /// the bundle has no such file.
    func verifiedContents(of path: String) throws -> [UInt8]?
}
