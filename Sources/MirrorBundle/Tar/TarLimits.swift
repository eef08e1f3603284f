/// Bounds a `TarReader` enforces so a hostile or broken archive cannot exhaust disk or memory.
///
/// The defaults fit real web sites with room to spare; raise a field to accept bigger bundles.
public struct TarLimits: Sendable, Hashable {
    /// Largest size of one file, in bytes.
    public var maxEntrySize: Int64
    /// Largest sum of all file sizes, in bytes.
    public var maxTotalSize: Int64
    /// Most entries (files and directories) in one archive.
    public var maxEntryCount: Int
    /// Largest pax or GNU long-name header body, in bytes; these are held in memory.
    public var maxExtendedHeaderSize: Int

    public init(
        maxEntrySize: Int64 = 4 << 30,
        maxTotalSize: Int64 = 64 << 30,
        maxEntryCount: Int = 2_000_000,
        maxExtendedHeaderSize: Int = 1 << 20
    ) {
        self.maxEntrySize = maxEntrySize
        self.maxTotalSize = maxTotalSize
        self.maxEntryCount = maxEntryCount
        self.maxExtendedHeaderSize = maxExtendedHeaderSize
    }

    /// 4 GiB per file, 64 GiB in all, 2,000,000 entries, 1 MiB per extended header.
    public static let `default` = TarLimits()
}
