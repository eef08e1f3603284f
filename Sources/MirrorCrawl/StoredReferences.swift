import MirrorHTML

/// The located references of an HTML page in the journal's compact binary form, for the
/// rewriting at the end of the crawl: the count of references, then per reference a flags byte
/// (base, in an attribute), the range's start and length and the value's byte count, then the
/// value's UTF-8; numbers are LEB128 varints. Kind and source are not kept: rewriting needs
/// neither.
enum StoredReferences {
    /// Part of each page's journal key: references kept by another version of the locator or of
    /// this form are not used (the page is parsed again).
    static let version = "references 2"

    static func encode(_ references: [HTMLReference]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(references.count * 24)
        appendVarint(references.count, to: &bytes)
        for reference in references {
            bytes.append((reference.role == .base ? 1 : 0) | (reference.inAttribute ? 2 : 0))
            appendVarint(reference.range.lowerBound, to: &bytes)
            appendVarint(reference.range.count, to: &bytes)
            appendVarint(reference.value.utf8.count, to: &bytes)
            bytes.append(contentsOf: reference.value.utf8)
        }
        return bytes
    }

    /// The references of `encode`'s bytes; nil when they are not in that form.
    static func decode(_ bytes: [UInt8]) -> [HTMLReference]? {
        var references: [HTMLReference] = []
        var position = 0
        guard let count = varint(bytes, &position), count <= bytes.count else { return nil }
        for _ in 0..<count {
            guard position < bytes.count else { return nil }
            let flags = bytes[position]
            position += 1
            guard flags < 4, let start = varint(bytes, &position), let length = varint(bytes, &position),
                let valueCount = varint(bytes, &position), valueCount <= bytes.count - position
            else { return nil }
            let value = String(decoding: bytes[position..<position + valueCount], as: UTF8.self)
            position += valueCount
            references.append(HTMLReference(
                range: start..<start + length, value: value, role: flags & 1 == 1 ? .base : .link, inAttribute: flags & 2 == 2))
        }
        return position == bytes.count ? references : nil
    }

    private static func appendVarint(_ value: Int, to bytes: inout [UInt8]) {
        var value = UInt(value)
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// The varint at `position`, which moves past it; nil when cut short or over 2^42.
    private static func varint(_ bytes: [UInt8], _ position: inout Int) -> Int? {
        var value = 0
        var shift = 0
        while position < bytes.count, shift <= 35 {
            let byte = bytes[position]
            position += 1
            value |= Int(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
        return nil
    }
}
