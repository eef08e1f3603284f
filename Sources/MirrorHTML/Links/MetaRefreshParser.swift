/// The URL in a `<meta http-equiv="refresh" content="5; url=next.html">`, following the HTML
/// spec's "shared declarative refresh steps" (quotes optional, `url=` optional and case-insensitive).
enum MetaRefreshParser {
    /// Where the URL is in `bytes` (without its quotes), or nil when the content is only a delay
    /// or is malformed.
    static func urlRange(in bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        var position = 0
        func skipWhitespace() {
            while position < bytes.count, ExtractedLink.isASCIIWhitespace(bytes[position]) { position += 1 }
        }
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

        skipWhitespace()
        let delayStart = position
        while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        if position == delayStart, position >= bytes.count || bytes[position] != UInt8(ascii: ".") { return nil }
        while position < bytes.count, isDigit(bytes[position]) || bytes[position] == UInt8(ascii: ".") {
            position += 1
        }
        guard position < bytes.count else { return nil }
        let separator = bytes[position]
        guard
            separator == UInt8(ascii: ";") || separator == UInt8(ascii: ",")
                || ExtractedLink.isASCIIWhitespace(separator)
        else { return nil }
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: ";") || bytes[position] == UInt8(ascii: ",") {
            position += 1
        }
        skipWhitespace()
        guard position < bytes.count else { return nil }

        var urlStart = position
        var mayBeQuoted = true
        if position + 3 <= bytes.count, bytes[position..<position + 3].map({ $0 | 0x20 }) == Array("url".utf8) {
            position += 3
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "=") {
                position += 1
                skipWhitespace()
                urlStart = position
            } else {
                // "url" without "=" is the start of the URL itself.
                mayBeQuoted = false
            }
        }
        var urlEnd = bytes.count
        if mayBeQuoted, urlStart < bytes.count, bytes[urlStart] == UInt8(ascii: "\"") || bytes[urlStart] == UInt8(ascii: "'") {
            let quote = bytes[urlStart]
            urlStart += 1
            urlEnd = bytes[urlStart...].firstIndex(of: quote) ?? bytes.count
        }
        return urlStart..<urlEnd
    }
}
