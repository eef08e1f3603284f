/// A start tag read from the original bytes the way a browser's tokenizer reads it (HTML
/// §13.2.5): attribute names up to whitespace, `/`, `>` or `=`; values quoted with `"` or `'`
/// (a `>` inside quotes does not end the tag) or unquoted up to whitespace or `>`. Only the
/// first attribute of each name counts, as in browsers.
struct HTMLStartTag {
    struct Attribute {
        /// The bytes of the name as written.
        let name: Range<Int>
        /// The raw bytes of the value, without its quotes; nil for an attribute without `=`.
        let value: Range<Int>?
    }

    /// The index of the opening `<`.
    let start: Int
    private let bytes: [UInt8]
    private(set) var attributes: [Attribute] = []
    /// The index of the closing `>`, or the end of the bytes for an unfinished tag.
    private(set) var end: Int

    /// Reads the tag whose `<` is at `start`.
    init(_ bytes: [UInt8], at start: Int) {
        self.start = start
        self.bytes = bytes
        var position = start + 1
        func isSpace(_ byte: UInt8) -> Bool { ExtractedLink.isASCIIWhitespace(byte) }
        func skipSpaces() { while position < bytes.count, isSpace(bytes[position]) { position += 1 } }
        while position < bytes.count, !isSpace(bytes[position]), bytes[position] != UInt8(ascii: "/"),
            bytes[position] != UInt8(ascii: ">")
        {
            position += 1
        }
        while true {
            while position < bytes.count, isSpace(bytes[position]) || bytes[position] == UInt8(ascii: "/") {
                position += 1
            }
            guard position < bytes.count, bytes[position] != UInt8(ascii: ">") else { break }
            let nameStart = position
            position += 1  // the first character may be "="
            while position < bytes.count, !isSpace(bytes[position]), bytes[position] != UInt8(ascii: "/"),
                bytes[position] != UInt8(ascii: ">"), bytes[position] != UInt8(ascii: "=")
            {
                position += 1
            }
            let name = nameStart..<position
            skipSpaces()
            var value: Range<Int>?
            if position < bytes.count, bytes[position] == UInt8(ascii: "=") {
                position += 1
                skipSpaces()
                if position < bytes.count, bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'") {
                    let quote = bytes[position]
                    let valueStart = position + 1
                    position = bytes[valueStart...].firstIndex(of: quote) ?? bytes.count
                    value = valueStart..<position
                    position = min(position + 1, bytes.count)
                } else {
                    let valueStart = position
                    while position < bytes.count, !isSpace(bytes[position]), bytes[position] != UInt8(ascii: ">") {
                        position += 1
                    }
                    value = valueStart..<position
                }
            }
            if !attributes.contains(where: { Self.sameName($0.name, name, in: bytes) }) {
                attributes.append(Attribute(name: name, value: value))
            }
        }
        end = position
    }

    /// The first attribute called `name` (lower-cased, as libxml2 reports names).
    subscript(_ name: UnsafeBufferPointer<UInt8>) -> Attribute? {
        attributes.first { attribute in
            attribute.name.count == name.count
                && zip(attribute.name, name).allSatisfy { bytes[$0].asciiLowercased == $1 }
        }
    }

    /// Whether two names in `bytes` are the same once lower-cased (ASCII only, as libxml2 does).
    private static func sameName(_ first: Range<Int>, _ second: Range<Int>, in bytes: [UInt8]) -> Bool {
        first.count == second.count && zip(first, second).allSatisfy { bytes[$0].asciiLowercased == bytes[$1].asciiLowercased }
    }
}
