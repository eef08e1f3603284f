/// Crafts tar bytes field by field, including wrong ones, for tests of hostile or unusual archives.
///
/// ```swift
/// let archive = RawTar.archive([
///     RawTar.pax([("path", "../evil")]),
///     RawTar.file("innocent", Array("x".utf8)),
/// ])
/// ```
enum RawTar {
    static let blockSize = 512
    /// The end-of-archive marker: two zero blocks.
    static let endMarker = [UInt8](repeating: 0, count: 1024)

    /// One 512-byte header block.
    /// - Parameters:
    ///   - type: the type flag, e.g. "0", "5", "2", "x", "L", or "\0".
    ///   - size: written as 11 octal digits unless `sizeField` gives the raw 12 bytes.
    ///   - prefix: the ustar prefix field (used only with the POSIX magic).
    ///   - gnuMagic: "ustar  \0" as GNU tar's own format writes, instead of "ustar\0" "00".
    ///   - checksumDelta: added to the correct checksum, to make it wrong.
    static func header(
        name: String, type: Character = "0", size: Int = 0, linkName: String = "", prefix: String = "",
        gnuMagic: Bool = false, sizeField: [UInt8]? = nil, checksumDelta: Int = 0
    ) -> [UInt8] {
        header(
            rawName: Array(name.utf8), type: type, size: size, linkName: linkName, prefix: prefix,
            gnuMagic: gnuMagic, sizeField: sizeField, checksumDelta: checksumDelta)
    }

    /// `header(name:…)` with the name as raw bytes (at most 100).
    static func header(
        rawName: [UInt8], type: Character = "0", size: Int = 0, linkName: String = "", prefix: String = "",
        gnuMagic: Bool = false, sizeField: [UInt8]? = nil, checksumDelta: Int = 0
    ) -> [UInt8] {
        var block = [UInt8](repeating: 0, count: blockSize)
        func put(_ bytes: some Collection<UInt8>, at offset: Int, width: Int) {
            precondition(bytes.count <= width, "RawTar: field at \(offset) holds \(width) bytes")
            block.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
        }
        func octal(_ value: Int, width: Int) -> [UInt8] {
            let digits = String(value, radix: 8)
            return Array((String(repeating: "0", count: max(0, width - 1 - digits.count)) + digits).utf8) + [0]
        }
        put(rawName, at: 0, width: 100)
        put(octal(0o644, width: 8), at: 100, width: 8)
        put(octal(0, width: 8), at: 108, width: 8)
        put(octal(0, width: 8), at: 116, width: 8)
        put(sizeField ?? octal(size, width: 12), at: 124, width: 12)
        put(octal(0, width: 12), at: 136, width: 12)
        block[156] = type.asciiValue!
        put(Array(linkName.utf8), at: 157, width: 100)
        put(Array((gnuMagic ? "ustar  \0" : "ustar\000").utf8), at: 257, width: 8)
        put(Array(prefix.utf8), at: 345, width: 155)
        put(Array("        ".utf8), at: 148, width: 8)
        let sum = block.reduce(0) { $0 + Int($1) } + checksumDelta
        put(octal(sum, width: 7) + [0x20], at: 148, width: 8)
        return block
    }

    /// Bytes followed by zeros up to a whole block.
    static func padded(_ data: [UInt8]) -> [UInt8] {
        data + [UInt8](repeating: 0, count: (blockSize - data.count % blockSize) % blockSize)
    }

    /// A header and its padded data; the size field tells the data's length.
    static func file(_ name: String, _ contents: [UInt8] = [], type: Character = "0") -> [UInt8] {
        header(name: name, type: type, size: contents.count) + padded(contents)
    }

    static func directory(_ name: String) -> [UInt8] {
        header(name: name, type: "5")
    }

    /// One pax record, "LEN key=value\n", with LEN counting itself.
    static func record(_ key: String, _ value: String) -> [UInt8] {
        let body = Array(" \(key)=\(value)\n".utf8)
        var length = body.count + 1
        while String(length).utf8.count + body.count != length { length = String(length).utf8.count + body.count }
        return Array(String(length).utf8) + body
    }

    /// A pax extended header ('x', or 'g' when `global`) holding these records, in order.
    static func pax(_ records: [(String, String)], name: String = "PaxHeaders/entry", global: Bool = false) -> [UInt8] {
        pax(body: records.flatMap { record($0.0, $0.1) }, name: name, global: global)
    }

    /// A pax extended header with any body, well-formed or not.
    static func pax(body: [UInt8], name: String = "PaxHeaders/entry", global: Bool = false) -> [UInt8] {
        header(name: name, type: global ? "g" : "x", size: body.count) + padded(body)
    }

    /// A GNU long name ('L') or long link ('K') header for the entry that follows.
    static func gnuLong(_ value: String, type: Character = "L") -> [UInt8] {
        let body = Array(value.utf8) + [0]
        return header(name: "././@LongLink", type: type, size: body.count, gnuMagic: true) + padded(body)
    }

    /// The parts one after another, then the end marker unless `end` is false.
    static func archive(_ parts: [[UInt8]], end: Bool = true) -> [UInt8] {
        parts.flatMap { $0 } + (end ? endMarker : [])
    }
}
