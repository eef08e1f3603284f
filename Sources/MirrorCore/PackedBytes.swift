/// Compact binary forms, written or read: LEB128 varints, single bytes, and UTF-8 strings
/// prefixed by their byte count. The crawl journal's records use them (cheaper than JSON for
/// what is written once per URL: the Codable encoder cost more per page than parsing it), and
/// so do the header fields of a manifest's records in memory.
public struct PackedBytes: Sendable {
    public private(set) var bytes: [UInt8]
    private var position = 0

    /// An empty buffer to write.
    public init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// A buffer to read from the start.
    public init(reading bytes: [UInt8]) {
        self.bytes = bytes
    }

    public var isAtEnd: Bool { position == bytes.count }

    // MARK: Writing

    public mutating func append(byte: UInt8) {
        bytes.append(byte)
    }

    public mutating func append(_ value: Int) {
        var value = UInt(bitPattern: value)
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    public mutating func append(_ value: Double) {
        append(Int(bitPattern: UInt(value.bitPattern)))
    }

    public mutating func append(_ string: String) {
        append(string.utf8.count)
        bytes.append(contentsOf: string.utf8)
    }

    /// Bytes prefixed by their count.
    public mutating func append(bytes more: [UInt8]) {
        append(more.count)
        bytes.append(contentsOf: more)
    }

    /// Bytes of a count the reader knows, without it.
    public mutating func append(raw more: some Sequence<UInt8>) {
        bytes.append(contentsOf: more)
    }

    /// A flag byte, then the string when there is one.
    public mutating func append(_ string: String?) {
        append(byte: string == nil ? 0 : 1)
        if let string { append(string) }
    }

    // MARK: Reading (nil when the bytes are cut short or not in this form)

    public mutating func readByte() -> UInt8? {
        guard position < bytes.count else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    /// A varint of at most 64 bits.
    public mutating func readInt() -> Int? {
        var value: UInt = 0
        var shift: UInt = 0
        while let byte = readByte(), shift < 64 {
            value |= UInt(byte & 0x7F) << shift
            if byte < 0x80 { return Int(bitPattern: value) }
            shift += 7
        }
        return nil
    }

    /// A count or size: a varint that is not negative and not above what is left to read.
    public mutating func readCount() -> Int? {
        guard let count = readInt(), count >= 0, count <= bytes.count - position else { return nil }
        return count
    }

    public mutating func readDouble() -> Double? {
        readInt().map { Double(bitPattern: UInt64(UInt(bitPattern: $0))) }
    }

    public mutating func readString() -> String? {
        guard let count = readCount() else { return nil }
        defer { position += count }
        return String(decoding: bytes[position..<position + count], as: UTF8.self)
    }

    /// Moves past a string (or bytes prefixed by their count) without reading it; false when
    /// there is none.
    public mutating func skipString() -> Bool {
        guard let count = readCount() else { return false }
        position += count
        return true
    }

    /// Bytes written by `append(bytes:)`.
    public mutating func readBytes() -> [UInt8]? {
        guard let count = readCount() else { return nil }
        defer { position += count }
        return Array(bytes[position..<position + count])
    }

    /// `count` bytes written by `append(raw:)`.
    public mutating func readRaw(count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, count <= bytes.count - position else { return nil }
        defer { position += count }
        return bytes[position..<position + count]
    }

    public mutating func readOptionalString() -> String?? {
        switch readByte() {
        case 0: return .some(nil)
        case 1: return readString().map { .some($0) }
        default: return nil
        }
    }
}
