/// Header fields (`[[String]]`, each usually `[name, value]`) packed into one byte array: per
/// field its number of parts, then each part's UTF-8 length and bytes, lengths as LEB128.
/// Any strings round-trip, whatever bytes they hold.
enum HeaderFields {
    static func pack(_ fields: [[String]]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(fields.reduce(0) { $0 + $1.reduce(2) { $0 + $1.utf8.count + 2 } })
        for field in fields {
            appendLength(field.count, to: &bytes)
            for part in field {
                appendLength(part.utf8.count, to: &bytes)
                bytes.append(contentsOf: part.utf8)
            }
        }
        return bytes
    }

    static func unpack(_ bytes: [UInt8]) -> [[String]] {
        var fields: [[String]] = []
        var offset = 0
        while offset < bytes.count {
            let count = readLength(bytes, &offset)
            var field: [String] = []
            field.reserveCapacity(count)
            for _ in 0..<count {
                let length = readLength(bytes, &offset)
                field.append(String(decoding: bytes[offset..<offset + length], as: UTF8.self))
                offset += length
            }
            fields.append(field)
        }
        return fields
    }

    private static func appendLength(_ value: Int, to bytes: inout [UInt8]) {
        var rest = UInt(value)
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// Only ever reads what `pack` wrote.
    private static func readLength(_ bytes: [UInt8], _ offset: inout Int) -> Int {
        var value = 0
        var shift = 0
        while true {
            let byte = bytes[offset]
            offset += 1
            value |= Int(byte & 0x7f) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }
}
