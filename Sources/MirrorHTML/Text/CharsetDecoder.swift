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
    /// for `charset` or some bytes do not convert. What a converter lets through that is no
    /// UTF-8 (libxml2 writes a lone UTF-16 surrogate as its three bytes, and "converts" UTF-8 by
    /// copying it) reads as U+FFFD, as `String(decoding:)` reads it. (One call converts what fits
    /// in twice the input's size: a byte of a single-byte charset may take three in UTF-8.)
    static func utf8(_ bytes: ArraySlice<UInt8>, from charset: String) -> [UInt8]? {
        HTMLSAXParser.initializeLibrary()
        guard bytes.count <= Int(Int32.max), let handler = xmlFindCharEncodingHandler(charset) else { return nil }
        defer { xmlCharEncCloseFunc(handler) }
        guard let input = xmlBufferCreate() else { return nil }
        defer { xmlBufferFree(input) }
        guard let output = xmlBufferCreate() else { return nil }
        defer { xmlBufferFree(output) }
        bytes.withUnsafeBufferPointer { _ = xmlBufferAdd(input, $0.baseAddress, Int32($0.count)) }
        while xmlBufferLength(input) > 0 {
            let left = xmlBufferLength(input)
            guard xmlCharEncInFunc(handler, output, input) >= 0, xmlBufferLength(input) < left else { return nil }
        }
        guard let content = xmlBufferContent(output) else { return nil }
        let converted = UnsafeBufferPointer(start: content, count: Int(xmlBufferLength(output)))
        return Array(String(decoding: converted, as: UTF8.self).utf8)
    }

    /// Whether `charset` is "utf-8" or "utf8", in any case (asked for every attribute decoded:
    /// compared in place, not lower-cased into a new String).
    static func isUTF8(_ charset: String) -> Bool {
        let bytes = charset.utf8
        guard bytes.count == 5 || bytes.count == 4 else { return false }
        let expected = bytes.count == 5 ? "utf-8".utf8 : "utf8".utf8
        return bytes.elementsEqual(expected) { $0 | ($0 >= 0x41 && $0 <= 0x5A ? 0x20 : 0) == $1 }
    }

    /// The text of raw attribute bytes: decoded from `charset`, then character references
    /// replaced as libxml2's HTML parser replaces them in attribute values: numeric ones
    /// (`&#233;`, `&#xE9;`) with or without `;`, named ones of HTML 4 (`&eacute;`) with `;`.
    /// Others stay as written. libxml2's value ends at a NUL (written as it is or as `&#0;`): so
    /// does this one.
    static func decodeAttribute(_ bytes: ArraySlice<UInt8>, charset: String) -> String {
        let text = decode(bytes, charset: charset)
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "&") || $0 == 0 }) else { return text }
        var output = String.UnicodeScalarView()
        var rest = text.unicodeScalars[...]
        while let ampersand = rest.firstIndex(of: "&") {
            output += rest[..<ampersand]
            rest = rest[rest.index(after: ampersand)...]
            if let (character, length) = reference(at: rest) {
                output.append(character)
                rest = rest.dropFirst(length)
            } else {
                output.append("&")
            }
        }
        output += rest
        if let nul = output.firstIndex(of: "\u{0}") { output.removeSubrange(nul...) }
        return String(output)
    }

    /// The character of the reference that `text` (what follows a `&`) starts with, and how many
    /// scalars it spans; nil when it is none. A numeric one is read as libxml2 reads it: digits
    /// without limit, and U+0000 (which ends the value) when there are none or they name no
    /// character XML allows (`&#;`, `&#1;`, `&#xD800;`, `&#1114112;`).
    private static func reference(at text: Substring.UnicodeScalarView) -> (Unicode.Scalar, Int)? {
        if text.first == "#" {
            let isHex = text.dropFirst().first == "x" || text.dropFirst().first == "X"
            let digits = text.dropFirst(isHex ? 2 : 1).prefix { scalar in
                scalar.isASCII && (isHex ? scalar.properties.isASCIIHexDigit : ("0"..."9").contains(scalar))
            }
            var value: UInt32 = 0
            for digit in digits where value < 0x110000 {
                value = value * (isHex ? 16 : 10) + UInt32(Character(digit).hexDigitValue ?? 0)
            }
            let isXMLCharacter =
                value == 0x9 || value == 0xA || value == 0xD || (0x20...0xD7FF).contains(value)
                || (0xE000...0xFFFD).contains(value) || (0x10000...0x10FFFF).contains(value)
            let character = isXMLCharacter ? Unicode.Scalar(value) ?? "\u{0}" : "\u{0}"
            let length = (isHex ? 2 : 1) + digits.count
            return (character, text.dropFirst(length).first == ";" ? length + 1 : length)
        }
        let name = text.prefix { $0.isASCII && $0.properties.isAlphabetic || ("0"..."9").contains($0) }
        guard !name.isEmpty, name.count <= 32, text.dropFirst(name.count).first == ";" else { return nil }
        HTMLSAXParser.initializeLibrary()
        guard let entity = htmlEntityLookup(String(String.UnicodeScalarView(name))), let character = Unicode.Scalar(entity.pointee.value)
        else { return nil }
        return (character, name.count + 1)
    }
}
