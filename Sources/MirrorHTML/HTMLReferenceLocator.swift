/// Finds where every URL reference of an HTML document is written, as byte ranges of the
/// original document, so that links can be rewritten by splicing bytes (DESIGN.md: never by
/// serialising a libxml2 tree). It covers exactly what `HTMLLinkExtractor` follows
/// (`HTMLLinkAttribute`): each `srcset` candidate, each `url()`/`@import` of `style` attributes
/// and `<style>` elements, the URL part of a meta refresh, and the first `<base href>`.
///
/// libxml2 decides what is a tag (so broken markup is read as the parser reads it); the tag's
/// bytes are then found by scanning forward from the previous tag found and read again with
/// `HTMLStartTag` (see `locate`). The whole document is kept in memory, as the rewriter needs
/// it anyway.
///
/// UTF-16 documents are not supported (the scanners read ASCII-compatible bytes).
public final class HTMLReferenceLocator: HTMLSAXParser.Delegate {
    private let charset: String
    private lazy var parser: HTMLSAXParser = {
        let parser = HTMLSAXParser(delegate: self, charset: charset)
        parser.reportsText = false
        return parser
    }()
    /// Every byte fed so far.
    private var document: [UInt8] = []
    /// Tags are searched for after the previous tag found.
    private var searchFloor = 0
    private var references: [HTMLReference] = []
    private var sawBase = false
    /// Where the text of each `<style>` element starts; read once the document is complete.
    private var styleStarts: [Int] = []

    public init(charset: String = "utf-8") {
        self.charset = charset
    }

    /// Parses the next chunk of the document.
    public func feed(_ bytes: [UInt8]) {
        document.append(contentsOf: bytes)
        parser.feed(bytes)
    }

    /// Ends the document and returns its references in document order.
    public func finish() -> [HTMLReference] {
        parser.finish()
        for start in styleStarts { locateStyleText(from: start) }
        styleStarts.removeAll()
        return references.sorted { $0.range.lowerBound < $1.range.lowerBound }
    }

    /// The references of a whole document.
    public static func references(in html: [UInt8], charset: String = "utf-8") -> [HTMLReference] {
        let locator = HTMLReferenceLocator(charset: charset)
        locator.feed(html)
        return locator.finish()
    }

    // MARK: HTMLSAXParser.Delegate

    public func parser(_ parser: HTMLSAXParser, didStart element: String, attributes: [HTMLAttribute]) {
        let roles = attributes.compactMap { attribute in
            HTMLLinkAttribute.role(of: attribute.name, element: element, attributes: attributes).map { (attribute.name, $0) }
        }
        let linkValues = roles.compactMap { role in attributes.first { $0.name == role.0 } }
        guard !roles.isEmpty || element == "style", let tag = locate(element, attributes: attributes, values: linkValues)
        else { return }
        searchFloor = Self.rawTextElements.contains(element) ? endOfRawText(element, openedAt: tag.start) : tag.end
        if element == "style", tag.end < document.count { styleStarts.append(tag.end + 1) }
        for (name, role) in roles {
            guard let range = tag[name]?.value else { continue }
            add(role, range)
        }
    }

    public func parser(_ parser: HTMLSAXParser, didEnd element: String) {}

    public func parser(_ parser: HTMLSAXParser, foundText text: String) {}

    // MARK: Locating

    /// Elements whose content is text, not markup: a `<` inside them starts no tag.
    static let rawTextElements = ["script", "style", "textarea", "title", "xmp", "plaintext"]

    /// Finds, scanning forward from the previous tag found, the next start tag named `element`
    /// that has every attribute libxml2 reported — skipping comments and the content of raw-text
    /// elements, as a browser's tokenizer does. Events arrive in document order, so the scan is
    /// linear over the document, and a candidate must carry the same link values libxml2 reported.
    /// (libxml2's `xmlByteConsumed` runs ahead of the events when it
    /// buffers input, so it cannot place tags on real pages.) Each range found holds its own
    /// source value, so even a tag libxml2 dropped cannot make a wrong value be written.
    private func locate(_ element: String, attributes: [HTMLAttribute], values: [HTMLAttribute]) -> HTMLStartTag? {
        var position = searchFloor
        while let open = document[position...].firstIndex(of: UInt8(ascii: "<")) {
            if matches("<!--", at: open) {
                position = find("-->", from: open + 4).map { $0 + 3 } ?? document.count
                continue
            }
            if startsTag(element, at: open + 1) {
                let tag = HTMLStartTag(document, at: open)
                // Same attribute names, and the same link values: two `<link rel=… href=…>` in a row
                // differ only there, and one of them may be a tag libxml2 reported without a link role.
                if attributes.allSatisfy({ tag[$0.name] != nil }), values.allSatisfy({ attribute in
                    tag[attribute.name]?.value.map { decoded($0).1 == ExtractedLink.trimmed(attribute.value) } ?? false
                }) {
                    return tag
                }
                position = tag.end + 1
                continue
            }
            if let raw = Self.rawTextElements.first(where: { startsTag($0, at: open + 1) }) {
                position = endOfRawText(raw, openedAt: open)
                continue
            }
            position = open + 1
        }
        return nil
    }

    /// Where the closing tag of a raw-text element opened at `open` starts (or the end).
    private func endOfRawText(_ element: String, openedAt open: Int) -> Int {
        let tag = HTMLStartTag(document, at: open)
        return find("</" + element, from: tag.end, caseInsensitive: true) ?? document.count
    }

    private func matches(_ text: String, at position: Int) -> Bool {
        let bytes = Array(text.utf8)
        return position + bytes.count <= document.count && document[position..<position + bytes.count].elementsEqual(bytes)
    }

    private func find(_ text: String, from start: Int, caseInsensitive: Bool = false) -> Int? {
        let needle = Array(text.utf8)
        guard let first = needle.first else { return start }
        var index = start
        while index + needle.count <= document.count {
            if document[index] == first, zip(document[index..<index + needle.count], needle).allSatisfy({
                caseInsensitive ? $0 | 0x20 == $1 | 0x20 : $0 == $1
            }) {
                return index
            }
            index += 1
        }
        return nil
    }

    /// Whether the bytes at `position` are `name` (ASCII case-insensitive) followed by the end
    /// of a tag name.
    private func startsTag(_ name: String, at position: Int) -> Bool {
        var index = position
        for byte in name.utf8 {
            guard index < document.count, document[index] | (byte >= 0x61 && byte <= 0x7A ? 0x20 : 0) == byte else {
                return false
            }
            index += 1
        }
        guard index < document.count else { return true }
        let next = document[index]
        return ExtractedLink.isASCIIWhitespace(next) || next == UInt8(ascii: "/") || next == UInt8(ascii: ">")
    }

    /// The text of a `<style>` element runs to the first `</style` (raw text, as in browsers).
    private func locateStyleText(from start: Int) {
        let closing = Array("</style".utf8)
        var end = start
        while end < document.count {
            if document[end] == UInt8(ascii: "<"), end + closing.count <= document.count,
                zip(document[end..<end + closing.count], closing).allSatisfy({ $0 | 0x20 == $1 | 0x20 })
            {
                break
            }
            end += 1
        }
        addCSS(start..<end, inAttribute: false)
    }

    // MARK: References

    private func add(_ role: HTMLLinkAttribute, _ range: Range<Int>) {
        switch role {
        case .url:
            addLink(range)
        case .base:
            guard !sawBase else { return }
            sawBase = true
            let (trimmed, value) = decoded(range)
            references.append(HTMLReference(range: trimmed, value: value, role: .base, inAttribute: true))
        case .srcset:
            let ranges = document.withUnsafeBufferPointer { SrcsetParser.urlRanges(in: UnsafeBufferPointer(rebasing: $0[range])) }
            for candidate in ranges { addLink(candidate.shifted(by: range.lowerBound)) }
        case .metaRefresh:
            let url = document.withUnsafeBufferPointer { MetaRefreshParser.urlRange(in: UnsafeBufferPointer(rebasing: $0[range])) }
            if let url { addLink(url.shifted(by: range.lowerBound)) }
        case .style:
            addCSS(range, inAttribute: true)
        }
    }

    private func addLink(_ range: Range<Int>) {
        let (trimmed, value) = decoded(range)
        guard ExtractedLink.isFetchable(value) else { return }
        references.append(HTMLReference(range: trimmed, value: value, role: .link, inAttribute: true))
    }

    private func addCSS(_ range: Range<Int>, inAttribute: Bool) {
        let found = document.withUnsafeBufferPointer { CSSLinkExtractor.references(in: UnsafeBufferPointer(rebasing: $0[range])) }
        for reference in found {
            let raw = reference.range.shifted(by: range.lowerBound)
            var value = ExtractedLink.trimmed(reference.value)
            let hasReferences = inAttribute && document[raw].contains(UInt8(ascii: "&"))
            if hasReferences || (!CharsetDecoder.isUTF8(charset) && document[raw].contains(where: { $0 >= 0x80 })) {
                // Decoded again from the raw bytes; CSS escapes are then left as written.
                let text = inAttribute
                    ? CharsetDecoder.decodeAttribute(document[raw], charset: charset)
                    : CharsetDecoder.decode(document[raw], charset: charset)
                value = ExtractedLink.trimmed(text)
                // `url(&quot;x&quot;)`: quotes written as references are beyond this scanner.
                if hasReferences, value.contains(where: { $0 == "\"" || $0 == "'" }) { continue }
            }
            guard ExtractedLink.isFetchable(value) else { continue }
            references.append(HTMLReference(range: trimmedRange(raw), value: value, role: .link, inAttribute: inAttribute))
        }
    }

    /// `range` without surrounding whitespace, and its decoded, trimmed text.
    private func decoded(_ range: Range<Int>) -> (Range<Int>, String) {
        let trimmed = trimmedRange(range)
        return (trimmed, ExtractedLink.trimmed(CharsetDecoder.decodeAttribute(document[trimmed], charset: charset)))
    }

    private func trimmedRange(_ range: Range<Int>) -> Range<Int> {
        var lower = range.lowerBound
        var upper = range.upperBound
        while lower < upper, ExtractedLink.isASCIIWhitespace(document[lower]) { lower += 1 }
        while upper > lower, ExtractedLink.isASCIIWhitespace(document[upper - 1]) { upper -= 1 }
        return lower..<upper
    }
}

extension Range<Int> {
    fileprivate func shifted(by offset: Int) -> Range<Int> { lowerBound + offset..<upperBound + offset }
}
