/// A place in a gzip file where inflating can start without reading what comes before it
/// (the technique of zlib's `examples/zran.c`): the start of a member's first deflate block,
/// or the start of a later block together with the 32 KiB of output before it, which that
/// block's back-references may reach into.
public struct GzipAccessPoint: Sendable, Hashable {
    /// Offset in the gzip file of the first whole byte of the block.
    public var compressedOffset: Int
    /// How many high bits of the byte before `compressedOffset` already belong to the block
    /// (0–7; 0 at a member start, whose header ends on a byte boundary).
    public var bitCount: Int
    /// Offset of the block's first byte in the decompressed stream (all members in a row).
    public var uncompressedOffset: Int
    /// The up to 32 KiB of the member's output before the block, gzip-compressed (a window
    /// costs about a third of its 32 KiB on text); empty at a member start.
    public var window: [UInt8]

    public var startsMember: Bool { window.isEmpty }

    public init(compressedOffset: Int, bitCount: Int, uncompressedOffset: Int, window: [UInt8]) {
        self.compressedOffset = compressedOffset
        self.bitCount = bitCount
        self.uncompressedOffset = uncompressedOffset
        self.window = window
    }
}
