/// The HTML spec's "prescan a byte stream to determine its encoding": finds the charset label of
/// the first `<meta charset>` or `<meta http-equiv="content-type" content="…charset=…">`,
/// skipping comments and the attributes of other tags, without parsing the document.
struct MetaPrescan {
    private let bytes: [UInt8]
    private var position = 0

    init(bytes: ArraySlice<UInt8>) { self.bytes = Array(bytes) }

    /// The label as written (lower-cased), or nil when the bytes declare none.
    mutating func charset() -> String? {
        while position < bytes.count {
            if matches("<!--") {
                guard let end = find("-->", from: position + 2) else { return nil }
                position = end + 3
            } else if matches("<meta"), position + 5 < bytes.count,
                isSpace(bytes[position + 5]) || bytes[position + 5] == UInt8(ascii: "/")
            {
                position += 6
                if let label = metaCharset() { return label }
            } else if matches("<"), position + 1 < bytes.count,
                isLetter(bytes[position + 1])
                    || (bytes[position + 1] == UInt8(ascii: "/") && position + 2 < bytes.count && isLetter(bytes[position + 2]))
            {
                while position < bytes.count, !isSpace(bytes[position]), bytes[position] != UInt8(ascii: ">") {
                    position += 1
                }
                while attribute() != nil {}
                position += 1
            } else if matches("<!") || matches("</") || matches("<?") {
                guard let end = find(">", from: position + 2) else { return nil }
                position = end + 1
            } else {
                position += 1
            }
        }
        return nil
    }

    /// Reads the attributes of one `<meta` tag; its charset label if it declares one.
    private mutating func metaCharset() -> String? {
        var seen: Set<String> = []
        var gotPragma = false
        var needPragma: Bool?
        var charset: String?
        while let (name, value) = attribute() {
            guard seen.insert(name).inserted else { continue }
            switch name {
            case "http-equiv":
                if value == "content-type" { gotPragma = true }
            case "content":
                if charset == nil, let label = Self.charset(inContent: value) {
                    charset = label
                    needPragma = true
                }
            case "charset":
                charset = value
                needPragma = false
            default:
                break
            }
        }
        // A label of white space alone names no encoding (it trims to nothing): the next meta may.
        guard let needPragma, let charset, !charset.allSatisfy(\.isWhitespace), !needPragma || gotPragma else { return nil }
        return charset
    }

    /// "Get an attribute": the next name and value (both lower-cased), or nil at the tag's end.
    private mutating func attribute() -> (String, String)? {
        while position < bytes.count, isSpace(bytes[position]) || bytes[position] == UInt8(ascii: "/") {
            position += 1
        }
        guard position < bytes.count, bytes[position] != UInt8(ascii: ">") else { return nil }
        var name: [UInt8] = []
        var value: [UInt8] = []
        func result() -> (String, String) {
            (String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
        }
        // Name.
        while true {
            guard position < bytes.count else { return nil }
            let byte = bytes[position]
            if byte == UInt8(ascii: "="), !name.isEmpty {
                position += 1
                break
            }
            if isSpace(byte) {
                while position < bytes.count, isSpace(bytes[position]) { position += 1 }
                guard position < bytes.count else { return nil }
                guard bytes[position] == UInt8(ascii: "=") else { return result() }
                position += 1
                break
            }
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: ">") { return result() }
            name.append(byte.asciiLowercased)
            position += 1
        }
        // Value.
        while position < bytes.count, isSpace(bytes[position]) { position += 1 }
        guard position < bytes.count else { return nil }
        let first = bytes[position]
        if first == UInt8(ascii: "\"") || first == UInt8(ascii: "'") {
            position += 1
            while position < bytes.count {
                let byte = bytes[position]
                position += 1
                if byte == first { return result() }
                value.append(byte.asciiLowercased)
            }
            return nil
        }
        if first == UInt8(ascii: ">") { return result() }
        while position < bytes.count, !isSpace(bytes[position]), bytes[position] != UInt8(ascii: ">") {
            value.append(bytes[position].asciiLowercased)
            position += 1
        }
        return position < bytes.count ? result() : nil
    }

    /// "Extract a character encoding from a meta element": the label after `charset=` in a
    /// `content` value such as `text/html; charset=utf-8` (lower-cased by the attribute reader).
    /// By bytes, with ASCII white space, as the HTML spec reads it: on `Character`s a mark after
    /// `=` or a quote joined them, and a Greek question mark (U+037E) equalled `;`.
    static func charset(inContent content: String) -> String? {
        let bytes = Array(content.utf8)
        let isSpace = { (byte: UInt8) in byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D || byte == 0x20 }
        let name = Array("charset".utf8)
        var position = 0
        while let found = bytes[position...].firstRange(of: name) {
            var index = found.upperBound
            while index < bytes.count, isSpace(bytes[index]) { index += 1 }
            guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
                position = index
                continue
            }
            index += 1
            while index < bytes.count, isSpace(bytes[index]) { index += 1 }
            guard index < bytes.count else { return nil }
            let first = bytes[index]
            if first == UInt8(ascii: "\"") || first == UInt8(ascii: "'") {
                guard let end = bytes[(index + 1)...].firstIndex(of: first) else { return nil }
                return String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
            }
            let end = bytes[index...].firstIndex { isSpace($0) || $0 == UInt8(ascii: ";") } ?? bytes.count
            return String(decoding: bytes[index..<end], as: UTF8.self)
        }
        return nil
    }

    private func matches(_ prefix: String) -> Bool {
        var index = position
        for expected in prefix.utf8 {
            guard index < bytes.count, bytes[index].asciiLowercased == expected else { return false }
            index += 1
        }
        return true
    }

    private func find(_ needle: String, from start: Int) -> Int? {
        let needle = Array(needle.utf8)
        var index = start
        while index + needle.count <= bytes.count {
            if bytes[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    private func isSpace(_ byte: UInt8) -> Bool { ExtractedLink.isASCIIWhitespace(byte) }
    private func isLetter(_ byte: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte.asciiLowercased) }
}
