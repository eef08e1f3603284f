/// The ustar header block layout, shared by `TarWriter` and `TarReader`.
enum TarHeader {
    static let blockSize = 512
    static let nameField = 0..<100
    static let modeField = 100..<108
    static let uidField = 108..<116
    static let gidField = 116..<124
    static let sizeField = 124..<136
    static let mtimeField = 136..<148
    static let checksumField = 148..<156
    static let typeFlagIndex = 156
    static let linkNameField = 157..<257
    static let magicField = 257..<263
    static let versionField = 263..<265
    static let prefixField = 345..<500

    /// POSIX "ustar\0"; GNU tar's own format writes "ustar " and keeps other data where the prefix goes.
    static let posixMagic: [UInt8] = Array("ustar\0".utf8)
    /// The largest size the 11 octal digits of the size field hold (8 GiB - 1).
    static let maxOctalSize: Int64 = 0o77777777777

    /// Zero bytes that bring `count` up to a whole number of blocks.
    static func padding(for count: Int64) -> Int {
        Int((Int64(blockSize) - count % Int64(blockSize)) % Int64(blockSize))
    }

    /// Sums of the block with the checksum field as spaces, over unsigned and (historic) signed bytes.
    static func checksums(_ block: [UInt8]) -> (unsigned: Int64, signed: Int64) {
        var unsigned: Int64 = 0
        var signed: Int64 = 0
        for (index, byte) in block.enumerated() {
            let value = checksumField.contains(index) ? 0x20 : byte
            unsigned += Int64(value)
            signed += Int64(Int8(bitPattern: value))
        }
        return (unsigned, signed)
    }

    /// Bytes of a NUL-terminated text field.
    static func text(_ block: [UInt8], _ range: Range<Int>) -> ArraySlice<UInt8> {
        let field = block[range]
        return field[..<(field.firstIndex(of: 0) ?? field.endIndex)]
    }

    /// Parses an octal field (optional leading spaces, digits, then NULs or spaces) or a
    /// GNU base-256 field (high bit of the first byte set); nil when malformed or negative.
    static func number(_ field: ArraySlice<UInt8>) -> Int64? {
        guard let first = field.first else { return nil }
        if first & 0x80 != 0 {
            guard first & 0x40 == 0 else { return nil }  // negative
            var value = Int64(first & 0x3F)
            for byte in field.dropFirst() {
                guard value <= Int64.max >> 8 else { return nil }
                value = value << 8 | Int64(byte)
            }
            return value
        }
        var rest = field.drop { $0 == 0x20 }
        var value: Int64 = 0
        var digits = 0
        while let byte = rest.first, (0x30...0x37).contains(byte) {
            guard value <= Int64.max >> 3 else { return nil }
            value = value << 3 | Int64(byte - 0x30)
            digits += 1
            rest = rest.dropFirst()
        }
        guard digits > 0, rest.allSatisfy({ $0 == 0 || $0 == 0x20 }) else { return nil }
        return value
    }

    /// Appends one reproducible header block: mtime, uid and gid 0, no user or group names.
    /// - Parameter name: at most 100 bytes.
    static func append(name: [UInt8], type: UInt8, permissions: Int64, size: Int64, to output: inout [UInt8]) {
        var block = [UInt8](repeating: 0, count: blockSize)
        block.replaceSubrange(0..<name.count, with: name)
        writeOctal(permissions, into: &block, modeField)
        writeOctal(0, into: &block, uidField)
        writeOctal(0, into: &block, gidField)
        if size <= maxOctalSize {
            writeOctal(size, into: &block, sizeField)
        } else {
            block[sizeField.lowerBound] = 0x80
            for index in sizeField.dropFirst() {
                block[index] = UInt8(truncatingIfNeeded: size >> (8 * (sizeField.upperBound - 1 - index)))
            }
        }
        writeOctal(0, into: &block, mtimeField)
        block[typeFlagIndex] = type
        block.replaceSubrange(magicField, with: posixMagic)
        block.replaceSubrange(versionField, with: Array("00".utf8))
        writeOctal(checksums(block).unsigned, into: &block, checksumField.dropLast())
        block[checksumField.upperBound - 1] = 0x20
        output.append(contentsOf: block)
    }

    /// Zero-padded octal digits filling all but the last byte of `range`, then NUL.
    private static func writeOctal(_ value: Int64, into block: inout [UInt8], _ range: Range<Int>) {
        var rest = value
        for index in range.dropLast().reversed() {
            block[index] = 0x30 + UInt8(rest & 7)
            rest >>= 3
        }
        block[range.upperBound - 1] = 0
    }
}
