/// The title of an HTML page, for lists of pages (a WACZ's `pages.jsonl`): the text of the first
/// `<title>` element, decoded from the page's charset, character references replaced and white
/// space collapsed. A byte scan of the page's first bytes, not a parse: titles come early.
public enum HTMLTitle {
    /// The title in `prefix` (the first bytes of a page), or nil when there is none.
    /// - Parameter contentType: the HTTP `Content-Type`, which may name the charset.
    public static func title(in prefix: [UInt8], contentType: String?) -> String? {
        let charset = CharsetSniffer.charset(contentType: contentType, prefix: Array(prefix.prefix(1024)))
        guard CharsetSniffer.isASCIICompatible(charset), let open = findTag("<title", in: prefix[...]),
            let close = prefix[open...].firstIndex(of: UInt8(ascii: ">"))
        else { return nil }
        let text = prefix[(close + 1)...]
        guard let end = findTag("</title", in: text) else { return nil }
        let decoded = CharsetDecoder.decodeAttribute(text[..<end], charset: charset)
        let words = decoded.split(whereSeparator: { $0.isWhitespace })
        return words.isEmpty ? nil : words.joined(separator: " ")
    }

    /// Where the tag name `name` (lower-case ASCII, with its `<` or `</`) starts in `bytes`,
    /// ignoring case, where the name ends there (`<title>`, `<title lang=…>`, not `<titles>`).
    private static func findTag(_ name: String, in bytes: ArraySlice<UInt8>) -> Int? {
        let pattern = Array(name.utf8)
        var index = bytes.startIndex
        while index + pattern.count <= bytes.endIndex {
            let candidate = bytes[index..<(index + pattern.count)]
            if zip(candidate, pattern).allSatisfy({ $0.asciiLowercased == $1 }) {
                let after = index + pattern.count < bytes.endIndex ? bytes[index + pattern.count] : UInt8(ascii: ">")
                if after == UInt8(ascii: ">") || after == UInt8(ascii: "/") || after <= 0x20 { return index }
            }
            index += 1
        }
        return nil
    }
}
