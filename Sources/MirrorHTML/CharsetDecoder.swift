internal import CLibXML2

/// Decodes pieces of a document's raw bytes to Strings.
enum CharsetDecoder {
    /// `bytes` decoded from `charset` with libxml2's converters (UTF-8 when unknown).
    static func decode(_ bytes: ArraySlice<UInt8>, charset: String) -> String {
        guard !isUTF8(charset), bytes.contains(where: { $0 >= 0x80 }) || !CharsetSniffer.isASCIICompatible(charset) else {
            return String(decoding: bytes, as: UTF8.self)
        }
        return String(decoding: utf8(bytes, from: charset) ?? Array(bytes), as: UTF8.self)
    }

    /// `bytes` converted from `charset` to UTF-8 with libxml2's converters; nil when it has none
    /// for `charset` or the bytes do not convert.
    static func utf8(_ bytes: ArraySlice<UInt8>, from charset: String) -> [UInt8]? {
        HTMLSAXParser.initializeLibrary()
        guard bytes.count <= Int(Int32.max), let handler = xmlFindCharEncodingHandler(charset) else { return nil }
        defer { xmlCharEncCloseFunc(handler) }
        guard let input = xmlBufferCreate() else { return nil }
        defer { xmlBufferFree(input) }
        guard let output = xmlBufferCreate() else { return nil }
        defer { xmlBufferFree(output) }
        bytes.withUnsafeBufferPointer { _ = xmlBufferAdd(input, $0.baseAddress, Int32($0.count)) }
        guard xmlCharEncInFunc(handler, output, input) >= 0, let content = xmlBufferContent(output) else { return nil }
        return Array(UnsafeBufferPointer(start: content, count: Int(xmlBufferLength(output))))
    }

    static func isUTF8(_ charset: String) -> Bool {
        let label = charset.lowercased()
        return label == "utf-8" || label == "utf8"
    }

    /// The text of raw attribute bytes: decoded from `charset`, then character references
    /// (`&#233;`, `&#xE9;`, and the named ones that occur in URLs) replaced. Other named
    /// references stay as written.
    static func decodeAttribute(_ bytes: ArraySlice<UInt8>, charset: String) -> String {
        let text = decode(bytes, charset: charset)
        guard text.utf8.contains(UInt8(ascii: "&")) else { return text }
        var output = ""
        var rest = Substring(text)
        while let ampersand = rest.firstIndex(of: "&") {
            output += rest[..<ampersand]
            rest = rest[ampersand...]
            if let semicolon = rest.prefix(12).firstIndex(of: ";"),
                let character = character(named: rest[rest.index(after: ampersand)..<semicolon])
            {
                output.unicodeScalars.append(character)
                rest = rest[rest.index(after: semicolon)...]
            } else {
                output += "&"
                rest = rest.dropFirst()
            }
        }
        return output + rest
    }

    private static let named: [Substring: Unicode.Scalar] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}",
    ]

    private static func character(named name: Substring) -> Unicode.Scalar? {
        guard name.first == "#" else { return named[name] }
        let digits = name.dropFirst()
        let value = digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
        return value.flatMap(Unicode.Scalar.init)
    }
}
