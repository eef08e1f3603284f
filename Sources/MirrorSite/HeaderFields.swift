import MirrorCore

/// Header fields (`[[String]]`, each usually `[name, value]`) packed into one byte array
/// (`PackedBytes`): per field its number of parts, then each part as a string. Any strings
/// round-trip, whatever bytes they hold.
enum HeaderFields {
    static func pack(_ fields: [[String]]) -> [UInt8] {
        var bytes = PackedBytes(capacity: fields.reduce(0) { $0 + $1.reduce(2) { $0 + $1.utf8.count + 2 } })
        for field in fields {
            bytes.append(field.count)
            for part in field { bytes.append(part) }
        }
        return bytes.bytes
    }

    /// The fields of `pack`'s bytes (the only bytes it is given).
    static func unpack(_ packed: [UInt8]) -> [[String]] {
        var bytes = PackedBytes(reading: packed)
        var fields: [[String]] = []
        while !bytes.isAtEnd, let count = bytes.readCount() {
            fields.append((0..<count).compactMap { _ in bytes.readString() })
        }
        return fields
    }
}
