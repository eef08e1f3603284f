import MirrorLock

/// Reads parts of one file of a `SeekableBundle` in place, as a database engine reads pages: each
/// gzip member it needs is inflated once (its part of the file), checked against the seek
/// table, and kept for later reads. Safe to use from several threads.
public final class BundleFileReader: Sendable {
    /// The file's length in bytes.
    public let size: Int
    private let bundle: SeekableBundle
    private let path: String
    private let range: Range<Int>
    /// The part of the file each member read holds, by member.
    private let inflated = Locked<[Int: [UInt8]]>([:])

    init(bundle: SeekableBundle, path: String, range: Range<Int>) {
        self.bundle = bundle
        self.path = path
        self.range = range
        size = range.count
    }

    /// Fills `buffer` with the file's bytes from `offset`; the range must lie inside the file.
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws {
        precondition(offset >= 0 && offset + buffer.count <= size, "BundleFileReader: a read past the end of \(path)")
        let wanted = range.lowerBound + offset..<range.lowerBound + offset + buffer.count
        for member in bundle.members(overlapping: wanted) {
            let held = bundle.tarRange(ofMember: member).clamped(to: range)
            let part = try self.part(member: member, holding: held)
            let copied = held.clamped(to: wanted)
            part.withUnsafeBytes { part in
                UnsafeMutableRawBufferPointer(
                    rebasing: buffer[copied.lowerBound - wanted.lowerBound..<copied.upperBound - wanted.lowerBound]
                )
                .copyMemory(
                    from: UnsafeRawBufferPointer(rebasing: part[copied.lowerBound - held.lowerBound..<copied.upperBound - held.lowerBound]))
            }
        }
    }

    /// The bytes `held` of the file that member `member` holds, inflated on first use.
    private func part(member: Int, holding held: Range<Int>) throws -> [UInt8] {
        if let part = inflated.withLock({ $0[member] }) { return part }
        let part = try [UInt8](unsafeUninitializedCapacity: held.count) { buffer, initialized in
            try bundle.inflate(member: member, range: held, into: UnsafeMutableRawBufferPointer(buffer))
            initialized = held.count
        }
        inflated.withLock { $0[member] = part }
        return part
    }
}
