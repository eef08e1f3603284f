/// Finds where every URL reference of an HTML document is written, as byte ranges of the
/// original document, so that links can be rewritten by splicing bytes (never by serialising a
/// libxml2 tree). It covers exactly what `HTMLLinkExtractor` follows
/// (`HTMLLinkAttribute`): each `srcset` candidate, each `url()`/`@import` of `style` attributes
/// and `<style>` elements, the URL part of a meta refresh, and the first `<base href>`.
///
/// libxml2 decides what is a tag (so broken markup is read as the parser reads it); the tag's
/// bytes are then found by scanning forward from the previous tag found and read again with
/// `HTMLStartTag` (see `locate`), skipping what libxml2 skips; where that finds nothing, a
/// second scan skips nothing. Values are compared as libxml2 reads them: up to a NUL, with its
/// character references, invalid UTF-8 aside (see `reads`). So the links the crawl follows in
/// malformed pages (NUL bytes, junk, unquoted values, open tags, titles and comments) are the
/// ones rewritten. The whole document is kept in memory, as the rewriter needs it anyway.
/// A tag libxml2 reports whose bytes are still not found (it read it out of another
/// attribute's quoted value: `<img x&="y src=b.png">`) gives its links to the crawl (`links`),
/// from libxml2's values; they stay as written.
///
/// A UTF-16 or UTF-32 document has no references (the scanners read ASCII-compatible bytes);
/// its links come from its UTF-8 transcoding.
///
/// The link of an `a` or `area` `href` that reads as "log out" `endsSession` (`SessionEndReader`).
/// An `a` start tag is reported before its text, so its text is read until the element ends
/// (libxml2 reports the end of elements it closes itself too), the next `a` starts, the limit is
/// reached or the document ends; only then is its link marked. Without the page's text (`finish(readingText: false)`), libxml2 reports text and end tags
/// only while such an `a` is open (`wantsText`).
///
/// One job, at more than 350 lines: finding a tag libxml2 reported (the scan, its fallback,
/// what it skips, the bound on its cost) and reading its references (attribute values compared
/// as libxml2 reads them, `srcset` candidates, CSS, meta refresh, `<base>`) work on the same
/// state — the document, where the next search starts, the references placed so far — and each
/// decides what the other sees. The byte scans (`HTMLDocumentScans.swift`) and the judging of
/// "log out" links (`SessionEndReader`) are apart.
public final class HTMLReferenceLocator: HTMLEventHandler {
    private let charset: String
    private let isUTF8: Bool
    // The state below is touched by every callback of the parse of every page, and only by the
    // one parse that owns this locator (the class is not Sendable): the runtime's exclusivity
    // checks are left out.
    /// Every byte fed so far.
    @exclusivity(unchecked) private var document: [UInt8] = []
    /// Tags are searched for after the previous tag found.
    @exclusivity(unchecked) private var searchFloor = 0
    /// The fallback search starts after the last tag found starts and after the last reference
    /// found ends (see `locate`).
    @exclusivity(unchecked) private var lastTagStart = -1
    @exclusivity(unchecked) private var placedEnd = 0
    @exclusivity(unchecked) private var references: [HTMLReference] = []
    /// The links of tags libxml2 reported whose bytes were not found, and their `<base href>`.
    @exclusivity(unchecked) private var unplaced = HTMLLinks()
    @exclusivity(unchecked) private var sawBase = false
    /// The link attributes of the tag being reported: index among its attributes, and role.
    @exclusivity(unchecked) private var roles: [(index: Int, role: HTMLLinkAttribute)] = []
    /// Where each comment or raw-text element opened at a position ends, found once: a tag not
    /// found scans the rest of the document, and the next one would ask again.
    @exclusivity(unchecked) private var skipEnds: [Int: Int] = [:]
    /// The steps (`<` looked at) of the searches that found nothing. A tag not found costs a scan
    /// of the rest of the document; once these add up to the document's size in bytes, the rest
    /// is left unplaced, so that no page takes more than linear time.
    @exclusivity(unchecked) private var missedSteps = 0
    /// The page's text, once `finish(readingText: true)` has run.
    public private(set) var text: HTMLText?
    /// Reads the text during the parse that locates the references: held by `finish` for the
    /// parse, and called here without reference counting (an optional class read from a `var`
    /// is retained and released for each call, at every tag and text run).
    @exclusivity(unchecked) private var textReader: Unmanaged<HTMLTextReader>?
    /// Reads the text of the `a` whose link may end a session.
    @exclusivity(unchecked) private var sessionEnds = SessionEndReader()

    /// Whether links that end a session are looked for (`endsSession`); the rewriting, which
    /// needs only the references' places, does not pay for their text.
    private let detectsSessionEnds: Bool

    public init(charset: String = "utf-8", detectsSessionEnds: Bool = true) {
        self.charset = charset
        isUTF8 = CharsetDecoder.isUTF8(charset)
        self.detectsSessionEnds = detectsSessionEnds
    }

    /// Adds the next chunk of the document.
    public func feed(_ bytes: [UInt8]) {
        if document.isEmpty { document = bytes } else { document += bytes }
    }

    /// Parses the document and returns its references in document order.
    /// - Parameter readingText: also read the page's text (`text`) in the same parse.
    public func finish(readingText: Bool = false) -> [HTMLReference] {
        guard CharsetSniffer.isASCIICompatible(charset) else {
            if let utf8 = CharsetDecoder.utf8(document[...], from: charset) {
                let transcoded = HTMLReferenceLocator(charset: "utf-8", detectsSessionEnds: detectsSessionEnds)
                transcoded.feed(utf8)
                _ = transcoded.finish(readingText: readingText)
                unplaced = transcoded.links
                text = transcoded.text
            }
            return []
        }
        let reader = readingText ? HTMLTextReader(limit: HTMLText.bodyLimit) : nil
        textReader = reader.map(Unmanaged.passUnretained)
        HTMLSAXParser.parse(document, charset: charset, handler: self)
        textReader = nil
        if sessionEnds.isReading { markEndsSession(sessionEnds.end()) }
        text = reader?.text()
        references.sort { $0.range.lowerBound < $1.range.lowerBound }
        dropOverlaps()
        return references
    }

    /// What the crawl follows, once `finish` has run: the links of the references, then those
    /// of the tags whose bytes were not found; the first `<base href>` either way.
    public var links: HTMLLinks {
        var links = HTMLLinks(references: references)
        links.links += unplaced.links
        if links.baseHref == nil { links.baseHref = unplaced.baseHref }
        return links
    }

    /// The references of a whole document, for rewriting them (no session ends looked for).
    public static func references(in html: [UInt8], charset: String = "utf-8") -> [HTMLReference] {
        let locator = HTMLReferenceLocator(charset: charset, detectsSessionEnds: false)
        locator.feed(html)
        return locator.finish()
    }

    // MARK: HTMLEventHandler

    var wantsText: Bool { textReader != nil || sessionEnds.isReading }
    var wantsTextThroughout: Bool { textReader != nil }

    func endElement(_ name: UnsafeBufferPointer<UInt8>) {
        textReader?._withUnsafeGuaranteedRef { $0.endElement(name) }
        if sessionEnds.isReading, name.spells("a") { markEndsSession(sessionEnds.end()) }
    }

    func characters(_ text: UnsafeBufferPointer<UInt8>) {
        textReader?._withUnsafeGuaranteedRef { $0.characters(text) }
        if sessionEnds.isReading { markEndsSession(sessionEnds.read(text)) }
    }

    func startElement(_ element: UnsafeBufferPointer<UInt8>, attributes: UnsafeBufferPointer<HTMLAttributeBytes>) {
        textReader?._withUnsafeGuaranteedRef { $0.startElement(element, attributes: attributes) }
        let isAnchor = element.spells("a")
        guard detectsSessionEnds, isAnchor || element.spells("area") else { return locateReferences(element, attributes: attributes) }
        if isAnchor, sessionEnds.isReading { markEndsSession(sessionEnds.end()) }
        let (placed, unplacedCount) = (references.count, unplaced.links.count)
        locateReferences(element, attributes: attributes)
        noteSessionEnd(element, isAnchor: isAnchor, attributes: attributes, placedFrom: placed, unplacedFrom: unplacedCount)
    }

    /// The references of a start tag.
    private func locateReferences(_ element: UnsafeBufferPointer<UInt8>, attributes: UnsafeBufferPointer<HTMLAttributeBytes>) {
        // Left empty by most elements (they have no link), where Array's removeAll(keepingCapacity:)
        // would still go through its generic replaceSubrange.
        if !roles.isEmpty { roles.removeAll(keepingCapacity: true) }
        // An attribute libxml2 reports empty has no link (written without a value, or read by
        // libxml2 from bytes that are no attribute to the byte scanner: `srcset<p =x`).
        for (index, attribute) in attributes.enumerated() where !attribute.value.isEmpty {
            if let role = HTMLLinkAttribute.role(of: attribute.name, element: element, attributes: attributes) {
                roles.append((index, role))
            }
        }
        let isStyle = element.spells("style")
        guard !roles.isEmpty || isStyle else { return }
        guard missedSteps <= document.count,
            let tag = locate(element, attributes: attributes, from: searchFloor, skipping: true)
                ?? locate(element, attributes: attributes, from: max(lastTagStart + 1, placedEnd), skipping: false)
        else {
            return addUnplaced(attributes)
        }
        lastTagStart = tag.start
        let isRawText = Self.rawTextElements.contains { element.elementsEqual(UnsafeBufferPointer($0)) }
        let rawTextEnd = isRawText ? document.endOfRawText(element, after: tag.end) : tag.end
        // Raw text left open runs to the end of the document, unless libxml2 closes it sooner
        // (`<style><body>`, a `</a>` closing an open `<a>`): later tags are searched after the tag.
        searchFloor = max(searchFloor, rawTextEnd < document.count ? rawTextEnd : tag.end)
        if isStyle, tag.end < document.count {
            // Raw text: it runs to the first `</style`.
            addCSS(tag.end + 1..<rawTextEnd, inAttribute: false, urlSource: "style[url]", importSource: "style @import")
        }
        for (index, role) in roles {
            guard let range = tag[attributes[index].name]?.value else { continue }
            add(role, document.beforeNUL(range))
        }
        placedEnd = max(placedEnd, references.last?.range.upperBound ?? 0)
    }

    // MARK: Session-ending links

    /// Marks the `href` link the `a` or `area` just reported added (after `placedFrom` in
    /// `references` or `unplacedFrom` in `unplaced.links`) when its attributes read as "log
    /// out"; else, for an `a`, starts reading its text.
    private func noteSessionEnd(
        _ element: UnsafeBufferPointer<UInt8>, isAnchor: Bool, attributes: UnsafeBufferPointer<HTMLAttributeBytes>, placedFrom: Int,
        unplacedFrom: Int
    ) {
        let source = isAnchor ? "a[href]" : "area[href]"
        let link: SessionEndReader.Link
        if let index = references[placedFrom...].firstIndex(where: { $0.source == source }) {
            link = .reference(index)
        } else if let index = unplaced.links[unplacedFrom...].firstIndex(where: { $0.source == source }) {
            link = .unplaced(index)
        } else {
            return  // no href, or one that names nothing to fetch
        }
        markEndsSession(sessionEnds.start(link, isAnchor: isAnchor, attributes: attributes))
    }

    private func markEndsSession(_ link: SessionEndReader.Link?) {
        switch link {
        case .reference(let index): references[index].endsSession = true
        case .unplaced(let index): unplaced.links[index].endsSession = true
        case nil: break
        }
    }

    // MARK: Locating

    /// Elements whose content libxml2 reads as text, not markup: a `<` inside them starts no tag.
    /// Only these two: libxml2 reads tags inside `<title>`, `<textarea>`, `<xmp>` and
    /// `<plaintext>` (browsers read text), reports them, and the crawl follows their links: so
    /// they are found where they are written and rewritten like any other.
    private static let rawTextElements: [StaticString] = ["script", "style"]

    /// Finds, scanning forward from the previous tag found, the next start tag named `element`
    /// whose link values are those libxml2 reported — `skipping` comments and the content of
    /// raw-text elements, as libxml2's tokenizer does. Events arrive in document order, so the
    /// scan is linear over the document while tags are found (see `missedSteps` for when not).
    /// (libxml2's `xmlByteConsumed` runs ahead of the events when it buffers input, so it cannot
    /// place tags on real pages.) Each range found holds its own source
    /// value, so even a tag libxml2 dropped cannot make a wrong value be written.
    ///
    /// Without `skipping`, the fallback when that finds nothing, from just after the last tag
    /// found (and its references): where libxml2 did not read as a comment or raw text what
    /// looks like one (`<hea<script>d>` is a tag `hea` to it), or read the last tag shorter than
    /// its bytes (`<img alt="x y>` ends at its `>` for libxml2, not at the next `"`), the tag is
    /// still found, and the links the crawl follows are rewritten.
    private func locate(
        _ element: UnsafeBufferPointer<UInt8>, attributes: UnsafeBufferPointer<HTMLAttributeBytes>, from start: Int, skipping: Bool
    ) -> HTMLStartTag? {
        // Statics read once, not at every `<`: each read of one pays its lazy initialization's check.
        let (document, rawTextInitials, rawTextElements) = (document, Self.rawTextInitials, Self.rawTextElements)
        var position = start
        var steps = 0
        while let open = document.index(of: UInt8(ascii: "<"), from: position) {
            steps += 1
            // What may start here, by the next byte: a comment, the element, a raw-text element.
            let next = open + 1 < document.count ? document[open + 1] | 0x20 : 0
            if skipping, next == UInt8(ascii: "!"), document.matches("<!--", at: open) {
                position = skipEnd(open) { document.endOfComment(after: open + 4) }
                continue
            }
            if next == element[0] | 0x20, document.startsTag(element, at: open + 1) {
                let tag = HTMLStartTag(document, at: open)
                // The same link values (two `<link rel=… href=…>` in a row may differ only there, and
                // one of them may be a tag libxml2 reported without a link role).
                if roles.allSatisfy({ index, _ in
                    guard let value = tag[attributes[index].name]?.value else { return false }
                    return reads(document.beforeNUL(value), as: attributes[index].value)
                }) {
                    return tag
                }
                // Without skipping, this may be no tag to libxml2 (its quote left open, say): the
                // next one may be inside it.
                position = skipping ? tag.end + 1 : open + 1
                continue
            }
            if skipping, rawTextInitials.contains(next),
                let raw = rawTextElements.first(where: { document.startsTag(UnsafeBufferPointer($0), at: open + 1) })
            {
                position = skipEnd(open) { document.endOfRawText(UnsafeBufferPointer(raw), after: HTMLStartTag(document, at: open).end) }
                continue
            }
            position = open + 1
        }
        missedSteps += steps
        return nil
    }

    /// The end of the comment or raw-text element opened at `open`, found by `find` once.
    private func skipEnd(_ open: Int, find: () -> Int) -> Int {
        if let known = skipEnds[open] { return known }
        let end = find()
        skipEnds[open] = end
        return end
    }

    /// Keeps, of references whose ranges overlap (a tag found by the fallback inside bytes already
    /// placed), the first; the others' links are still followed.
    private func dropOverlaps() {
        var end = 0
        var kept: [HTMLReference] = []
        kept.reserveCapacity(references.count)
        for reference in references {
            if reference.range.lowerBound >= end {
                kept.append(reference)
                end = reference.range.upperBound
            } else if reference.role == .link {
                unplaced.links.append(
                    ExtractedLink(
                        reference: reference.value, kind: reference.kind, source: reference.source, endsSession: reference.endsSession))
            }
        }
        references = kept
    }

    /// Records the links of a tag whose bytes were not found, from libxml2's values.
    private func addUnplaced(_ attributes: UnsafeBufferPointer<HTMLAttributeBytes>) {
        func add(_ raw: UnsafeBufferPointer<UInt8>, _ kind: LinkKind, _ source: String) {
            if let link = ExtractedLink(raw: raw.string, kind: kind, source: source) { unplaced.links.append(link) }
        }
        for (index, role) in roles {
            let value = attributes[index].value
            switch role {
            case .url(let kind, let source):
                add(value, kind, source)
            case .base:
                guard !sawBase else { continue }
                sawBase = true
                unplaced.baseHref = ExtractedLink.trimmed(value.string)
            case .srcset(let source):
                for range in SrcsetParser.urlRanges(in: value) { add(UnsafeBufferPointer(rebasing: value[range]), .requisite, source) }
            case .metaRefresh:
                if let range = MetaRefreshParser.urlRange(in: value) {
                    add(UnsafeBufferPointer(rebasing: value[range]), .navigation, "meta[refresh]")
                }
            case .style(let source):
                for reference in CSSLinkExtractor.references(in: value) {
                    if let link = ExtractedLink(raw: reference.value, kind: .requisite, source: source) { unplaced.links.append(link) }
                }
            }
        }
    }

    /// The first letters of `rawTextElements` (an array: two bytes are found faster than hashed).
    private static let rawTextInitials = rawTextElements.map { $0.utf8Start[0] }

    /// Whether the raw value at `range` reads as libxml2's `value`, both trimmed — what
    /// comparing their decoded Strings says, without making them when the bytes settle it.
    /// Bytes that are not UTF-8 in a UTF-8 document are decoded as U+FFFD (as browsers do, and
    /// so are the links followed), where libxml2 reads them as Latin-1 or drops some: then the
    /// values need only agree on their ASCII characters.
    private func reads(_ range: Range<Int>, as value: UnsafeBufferPointer<UInt8>) -> Bool {
        let raw = document[trimmedRange(range)]
        let expected = ExtractedLink.trimmed(value)
        if isUTF8, !raw.contains(UInt8(ascii: "&")) {
            if raw.elementsEqual(expected) { return true }
            // Other bytes may still be canonically equivalent Strings, but not in ASCII.
            if raw.allSatisfy({ $0 < 0x80 }), expected.allSatisfy({ $0 < 0x80 }) { return false }
        }
        let text = decoded(range).1
        if text == expected.string { return true }
        guard isUTF8, text.unicodeScalars.contains("\u{FFFD}") else { return false }
        return text.unicodeScalars.filter(\.isASCII).elementsEqual(expected.string.unicodeScalars.filter(\.isASCII))
    }

    // MARK: References

    private func add(_ role: HTMLLinkAttribute, _ range: Range<Int>) {
        switch role {
        case .url(let kind, let source):
            addLink(range, kind, source)
        case .base:
            guard !sawBase else { return }
            sawBase = true
            let (trimmed, value) = decoded(range)
            references.append(HTMLReference(range: trimmed, value: value, role: .base, inAttribute: true, source: "base[href]"))
        case .srcset(let source):
            let ranges = document.withUnsafeBufferPointer { SrcsetParser.urlRanges(in: UnsafeBufferPointer(rebasing: $0[range])) }
            for candidate in ranges { addLink(candidate.shifted(by: range.lowerBound), .requisite, source) }
        case .metaRefresh:
            let url = document.withUnsafeBufferPointer { MetaRefreshParser.urlRange(in: UnsafeBufferPointer(rebasing: $0[range])) }
            guard let url else { return }
            let (trimmed, value) = decoded(url.shifted(by: range.lowerBound))
            // `url=&quot;x&quot;`: quotes written as references; the new value replaces them too.
            guard let unquoted = document[trimmed].contains(UInt8(ascii: "&")) ? Self.unquoted(value) : value,
                ExtractedLink.isFetchable(unquoted)
            else { return }
            references.append(
                HTMLReference(
                    range: trimmed, value: unquoted, role: .link, inAttribute: true, kind: .navigation, source: "meta[refresh]"))
        case .style(let source):
            addCSS(range, inAttribute: true, urlSource: source, importSource: source)
        }
    }

    private func addLink(_ range: Range<Int>, _ kind: LinkKind, _ source: String) {
        let (trimmed, value) = decoded(range)
        guard ExtractedLink.isFetchable(value) else { return }
        references.append(HTMLReference(range: trimmed, value: value, role: .link, inAttribute: true, kind: kind, source: source))
    }

    /// The `url()` and `@import` references of the CSS at `range` (a `style` attribute or the
    /// text of a `<style>` element): requisites.
    private func addCSS(_ range: Range<Int>, inAttribute: Bool, urlSource: String, importSource: String) {
        let found = document.withUnsafeBufferPointer { CSSLinkExtractor.references(in: UnsafeBufferPointer(rebasing: $0[range])) }
        for reference in found {
            let raw = reference.range.shifted(by: range.lowerBound)
            var value = ExtractedLink.trimmed(reference.value)
            let hasReferences = inAttribute && document[raw].contains(UInt8(ascii: "&"))
            if hasReferences || (!isUTF8 && document[raw].contains(where: { $0 >= 0x80 })) {
                // Decoded again from the raw bytes; CSS escapes are then left as written.
                let text =
                    inAttribute
                    ? CharsetDecoder.decodeAttribute(document[raw], charset: charset)
                    : CharsetDecoder.decode(document[raw], charset: charset)
                value = ExtractedLink.trimmed(text)
                if hasReferences {
                    // `url(&quot;x&quot;)`: the quotes were written as references; the new value
                    // replaces them too (it needs none).
                    guard let inner = Self.unquoted(value) else { continue }
                    value = inner
                }
            }
            guard ExtractedLink.isFetchable(value) else { continue }
            references.append(
                HTMLReference(
                    range: trimmedRange(raw), value: value, role: .link, inAttribute: inAttribute, kind: .requisite,
                    source: reference.isImport ? importSource : urlSource))
        }
    }

    /// `value` without the quotes around it; itself when unquoted; nil when it holds other quotes.
    private static func unquoted(_ value: String) -> String? {
        let isQuote = { (character: Character) in character == "\"" || character == "'" }
        guard value.contains(where: isQuote) else { return value }
        guard let first = value.first, isQuote(first), value.count >= 2, value.last == first else { return nil }
        let inner = value.dropFirst().dropLast()
        return inner.contains(where: isQuote) ? nil : ExtractedLink.trimmed(String(inner))
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
