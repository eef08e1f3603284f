/// Finds the URLs in a style sheet: `url(…)` (quoted or not, with CSS escapes), `@import "x"` and
/// `@import url(x)`, and the strings of `image-set(…)`. Every one is a requisite.
///
/// A small tokenizer over UTF-8 bytes rather than a regex, so that comments and ordinary strings
/// are skipped as a browser skips them and a style sheet is read once, without building Strings
/// for anything but the URLs.
public enum CSSLinkExtractor {
    /// One URL in a style sheet and where it is written.
    public struct Reference: Sendable, Equatable {
        /// The URL with CSS escapes decoded, untrimmed.
        public let value: String
        /// The bytes of the URL in the style sheet: inside the quotes of a string, or the
        /// unquoted argument of `url()` without surrounding whitespace.
        public let range: Range<Int>
        public let isImport: Bool
    }

    public static func links(in css: String) -> [ExtractedLink] {
        var css = css
        return css.withUTF8(references(in:)).compactMap { reference in
            ExtractedLink(raw: reference.value, kind: .requisite, source: reference.isImport ? "css @import" : "css url()")
        }
    }

    /// Every URL of `css`, with its position, fetchable or not.
    public static func references(in css: UnsafeBufferPointer<UInt8>) -> [Reference] {
        var references: [Reference] = []
        scan(css) { references.append($0) }
        return references
    }

    private static func scan(_ css: UnsafeBufferPointer<UInt8>, found: (Reference) -> Void) {
        var scanner = Scanner(bytes: css)
        var afterImport = false
        var depth = 0
        var imageSetDepth = -1
        func emit(_ token: (String, Range<Int>)?, isImport: Bool) {
            guard let (value, range) = token else { return }
            found(Reference(value: value, range: range, isImport: isImport))
        }

        while let byte = scanner.peek() {
            switch byte {
            case UInt8(ascii: "/") where scanner.peek(1) == UInt8(ascii: "*"):
                scanner.skipComment()
                continue  // a comment does not end "@import"
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                let value = scanner.string()
                if afterImport {
                    emit(value, isImport: true)
                } else if depth == imageSetDepth {
                    emit(value, isImport: false)
                }
            case 0x20, 0x09, 0x0A, 0x0C, 0x0D:
                scanner.position += 1
                continue
            case UInt8(ascii: "@"):
                scanner.position += 1
                let name = scanner.identifier()
                afterImport = scanner.matches(name, "import")
                continue
            case UInt8(ascii: "("):
                scanner.position += 1
                depth += 1
            case UInt8(ascii: ")"):
                scanner.position += 1
                if depth == imageSetDepth { imageSetDepth = -1 }
                depth = max(0, depth - 1)
            case UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: ";"):
                // Recover from unbalanced parentheses at the end of a declaration or block.
                scanner.position += 1
                depth = 0
                imageSetDepth = -1
            case _ where Scanner.startsIdentifier(byte):
                let name = scanner.identifier()
                guard scanner.peek() == UInt8(ascii: "(") else { break }
                scanner.position += 1
                if scanner.matches(name, "url") {
                    let (value, closed) = scanner.urlArgument()
                    emit(value, isImport: afterImport)
                    if !closed { depth += 1 }
                } else {
                    depth += 1
                    if scanner.matches(name, "image-set") || scanner.matches(name, "-webkit-image-set") {
                        imageSetDepth = depth
                    }
                }
            default:
                scanner.position += 1
            }
            afterImport = false
        }
    }
}

/// A cursor over CSS bytes with the few token rules the link extractor needs (CSS Syntax §4).
private struct Scanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    func peek(_ offset: Int = 0) -> UInt8? {
        position + offset < bytes.count ? bytes[position + offset] : nil
    }

    mutating func skipComment() {
        position += 2
        while position + 1 < bytes.count {
            if bytes[position] == UInt8(ascii: "*"), bytes[position + 1] == UInt8(ascii: "/") {
                position += 2
                return
            }
            position += 1
        }
        position = bytes.count
    }

    static func startsIdentifier(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte >= 0x80 || byte == UInt8(ascii: "\\")
    }

    /// The identifier at the cursor, escapes left raw (none of the names we look for need them).
    mutating func identifier() -> Range<Int> {
        let start = position
        while let byte = peek() {
            if byte == UInt8(ascii: "\\") {
                skipEscape()
            } else if Self.startsIdentifier(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) {
                position += 1
            } else {
                break
            }
        }
        return start..<position
    }

    /// Whether the bytes in `range` spell the lower-case ASCII `name`, ignoring case.
    func matches(_ range: Range<Int>, _ name: String) -> Bool {
        guard range.count == name.utf8.count else { return false }
        return zip(range, name.utf8).allSatisfy { bytes[$0] | 0x20 == $1 | 0x20 }
    }

    /// A quoted string starting at the cursor and the range inside its quotes, or nil for a
    /// string broken by a newline.
    mutating func string() -> (String, Range<Int>)? {
        let quote = bytes[position]
        position += 1
        let start = position
        var escaped = false
        while let byte = peek() {
            switch byte {
            case quote:
                position += 1
                return token(start..<position - 1, escaped: escaped)
            case UInt8(ascii: "\\"):
                escaped = true
                skipEscape()
            case 0x0A, 0x0C, 0x0D:
                return nil
            default:
                position += 1
            }
        }
        return token(start..<position, escaped: escaped)
    }

    /// The argument of `url(` (the cursor just after the parenthesis) and whether the closing
    /// parenthesis was consumed. A malformed unquoted URL gives nil, as in a browser.
    mutating func urlArgument() -> ((String, Range<Int>)?, closed: Bool) {
        skipWhitespace()
        if let byte = peek(), byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
            let value = string()
            skipWhitespace()
            guard peek() == UInt8(ascii: ")") else { return (value, false) }
            position += 1
            return (value, true)
        }
        let start = position
        var escaped = false
        while let byte = peek() {
            switch byte {
            case UInt8(ascii: ")"):
                position += 1
                return (token(start..<position - 1, escaped: escaped), true)
            case 0x20, 0x09, 0x0A, 0x0C, 0x0D:
                let end = position
                skipWhitespace()
                guard peek() == UInt8(ascii: ")") || peek() == nil else { return (skipBadURL(), true) }
                position = min(position + 1, bytes.count)
                return (token(start..<end, escaped: escaped), true)
            case UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "("), 0x00...0x08, 0x0B, 0x0E...0x1F, 0x7F:
                return (skipBadURL(), true)
            case UInt8(ascii: "\\"):
                if position + 1 < bytes.count, [0x0A, 0x0C, 0x0D].contains(bytes[position + 1]) {
                    return (skipBadURL(), true)
                }
                escaped = true
                skipEscape()
            default:
                position += 1
            }
        }
        return (token(start..<position, escaped: escaped), true)
    }

    /// Skips an escape at the cursor: `\` and one character, or `\`, up to six hex digits and one
    /// whitespace (which belongs to the escape, so it does not end an unquoted URL).
    private mutating func skipEscape() {
        position += 1
        guard position < bytes.count else { return }
        var digits = 0
        while digits < 6, position < bytes.count, Self.hexValue(bytes[position]) != nil {
            digits += 1
            position += 1
        }
        if digits == 0 {
            position += 1
        } else if position < bytes.count, ExtractedLink.isASCIIWhitespace(bytes[position]) {
            let isCRLF = bytes[position] == 0x0D && position + 1 < bytes.count && bytes[position + 1] == 0x0A
            position += isCRLF ? 2 : 1
        }
    }

    /// Skips the rest of a bad URL token, up to and including ")".
    private mutating func skipBadURL() -> (String, Range<Int>)? {
        while let byte = peek() {
            position += 1
            if byte == UInt8(ascii: ")") { break }
            if byte == UInt8(ascii: "\\") { position = min(position + 1, bytes.count) }
        }
        return nil
    }

    private mutating func skipWhitespace() {
        while let byte = peek(), ExtractedLink.isASCIIWhitespace(byte) { position += 1 }
    }

    private func token(_ range: Range<Int>, escaped: Bool) -> (String, Range<Int>) {
        let raw = UnsafeBufferPointer(rebasing: bytes[range])
        return (escaped ? Self.unescape(raw) : String(decoding: raw, as: UTF8.self), range)
    }

    /// Decodes CSS escapes: `\` + 1–6 hex digits + one optional whitespace, `\` + newline (a line
    /// continuation inside strings), `\` + any other character. Read over the text's scalars, as
    /// CSS decodes a style sheet before reading it (bytes that are no UTF-8 are U+FFFD first): an
    /// escaped byte never joins the bytes around it into a character neither of them is.
    private static func unescape(_ raw: UnsafeBufferPointer<UInt8>) -> String {
        let scalars = Array(String(decoding: raw, as: UTF8.self).unicodeScalars)
        var output = String.UnicodeScalarView()
        output.reserveCapacity(scalars.count)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            guard scalar == "\\", index < scalars.count else {
                output.append(scalar)
                continue
            }
            var value: UInt32 = 0
            var digits = 0
            while digits < 6, index < scalars.count, scalars[index].isASCII, let digit = hexValue(UInt8(scalars[index].value)) {
                value = value << 4 | digit
                digits += 1
                index += 1
            }
            if digits == 0 {
                let escaped = scalars[index]
                index += 1
                if escaped == "\n" || escaped == "\u{0C}" { continue }
                if escaped == "\r" {
                    if index < scalars.count, scalars[index] == "\n" { index += 1 }
                    continue
                }
                output.append(escaped)
                continue
            }
            if index < scalars.count, scalars[index].isASCII, ExtractedLink.isASCIIWhitespace(UInt8(scalars[index].value)) {
                if scalars[index] == "\r", index + 1 < scalars.count, scalars[index + 1] == "\n" { index += 1 }
                index += 1
            }
            output.append((value == 0 ? nil : Unicode.Scalar(value)) ?? "\u{FFFD}")
        }
        return String(output)
    }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
