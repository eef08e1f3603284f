import MirrorCore
import MirrorHTML

/// The located references of an HTML page in the journal's compact binary form, for the
/// rewriting at the end of the crawl: the count of references, then per reference a flags byte
/// (base, in an attribute), the range's start and length and the value's byte count, then the
/// value's UTF-8; numbers are LEB128 varints. Kind and source are not kept: rewriting needs
/// neither.
enum StoredReferences {
    /// Part of each page's journal key: references kept by another version of the locator or of
    /// this form are not used (the page is parsed again).
    static let version = "references 3"

    static func encode(_ references: [HTMLReference]) -> [UInt8] {
        var bytes = PackedBytes(capacity: references.count * 24)
        bytes.append(references.count)
        for reference in references {
            bytes.append(byte: (reference.role == .base ? 1 : 0) | (reference.inAttribute ? 2 : 0))
            bytes.append(reference.range.lowerBound)
            bytes.append(reference.range.count)
            bytes.append(reference.value)
        }
        return bytes.bytes
    }

    /// The references of `encode`'s bytes; nil when they are not in that form.
    static func decode(_ encoded: [UInt8]) -> [HTMLReference]? {
        var bytes = PackedBytes(reading: encoded)
        var references: [HTMLReference] = []
        guard let count = bytes.readCount() else { return nil }
        for _ in 0..<count {
            guard let flags = bytes.readByte(), flags < 4, let start = bytes.readInt(), let length = bytes.readInt(),
                (0..<1 << 42).contains(start), (0..<1 << 42).contains(length), let value = bytes.readString()
            else { return nil }
            references.append(
                HTMLReference(
                    range: start..<start + length, value: value, role: flags & 1 == 1 ? .base : .link, inAttribute: flags & 2 == 2))
        }
        return bytes.isAtEnd ? references : nil
    }
}
