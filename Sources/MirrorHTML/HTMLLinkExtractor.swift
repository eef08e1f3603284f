/// Finds every URL an HTML page refers to, fed in chunks as the body arrives.
///
/// Each link is classified: `a`/`area` hrefs, `meta` refresh and the page-like `link` relations
/// are navigation; everything the page needs to render (images, `srcset`, lazy `data-src`,
/// scripts, style sheets, icons, fonts, frames, objects, media, CSS `url()`) is a requisite.
///
/// `<link rel>` decisions: `stylesheet`, `icon`, `apple-touch-icon(-precomposed)`,
/// `apple-touch-startup-image`, `mask-icon`, `manifest`, `preload`, `modulepreload` and
/// `prefetch` are requisites; `next`, `prev`/`previous`, `first`, `last`, `up`, `index`,
/// `contents`, `start`, `author`, `license` and `help` are navigation. Every other relation
/// is skipped — notably `canonical` and `alternate` (other URLs or languages of this page,
/// feeds), `search`, `pingback`, `dns-prefetch`, `preconnect`, `edit` and `shortlink`, which
/// name nothing a reader needs offline (the same list the offline check ignores).
///
/// One instance serves one document and one task at a time.
public final class HTMLLinkExtractor: HTMLEventHandler {
    private let charset: String
    private lazy var parser = HTMLSAXParser(handler: self, charset: charset)
    private var result = HTMLLinks()
    /// The text of the `<style>` element being read; libxml2 may report it in several pieces.
    private var styleText: [UInt8]?

    /// - Parameter charset: the document's encoding (see `CharsetSniffer`); attribute values and
    ///   `<style>` text are decoded with it.
    public init(charset: String = "utf-8") {
        self.charset = charset
    }

    /// Parses the next chunk of the body.
    public func feed(_ bytes: [UInt8]) {
        parser.feed(bytes)
    }

    /// Parses the next chunk of the body.
    public func feed(_ bytes: UnsafeRawBufferPointer) {
        parser.feed(bytes)
    }

    /// Ends the document and returns what was found.
    public func finish() -> HTMLLinks {
        parser.finish()
        flushStyle()
        return result
    }

    /// Extracts the links of a whole document.
    public static func links(in html: [UInt8], charset: String = "utf-8") -> HTMLLinks {
        let extractor = HTMLLinkExtractor(charset: charset)
        extractor.feed(html)
        return extractor.finish()
    }

    // MARK: HTMLEventHandler

    func startElement(_ element: UnsafeBufferPointer<UInt8>, attributes: [HTMLAttributeBytes]) {
        if element.spells("style") {
            flushStyle()
            styleText = []
        }
        for attribute in attributes {
            let value = attribute.value
            switch HTMLLinkAttribute.role(of: attribute.name, element: element, attributes: attributes) {
            case .url(let kind, let source):
                add(value, kind, source)
            case .srcset(let source):
                for range in SrcsetParser.urlRanges(in: value) {
                    add(UnsafeBufferPointer(rebasing: value[range]), .requisite, source)
                }
            case .metaRefresh:
                if let range = MetaRefreshParser.urlRange(in: value) {
                    add(UnsafeBufferPointer(rebasing: value[range]), .navigation, "meta[refresh]")
                }
            case .style(let source):
                CSSLinkExtractor.scan(value, urlSource: source, importSource: source, into: &result.links)
            case .base:
                if result.baseHref == nil { result.baseHref = ExtractedLink.trimmed(value).string }
            case nil:
                break
            }
        }
    }

    func endElement(_ element: UnsafeBufferPointer<UInt8>) {
        if element.spells("style") { flushStyle() }
    }

    func characters(_ text: UnsafeBufferPointer<UInt8>) {
        styleText?.append(contentsOf: text)
    }

    var wantsText: Bool { styleText != nil }

    // MARK: Links

    /// Adds the link written `raw`, unless it names nothing to fetch.
    private func add(_ raw: UnsafeBufferPointer<UInt8>, _ kind: LinkKind, _ source: String) {
        let reference = ExtractedLink.trimmed(raw)
        guard ExtractedLink.isFetchable(reference) else { return }
        result.links.append(ExtractedLink(reference: reference.string, kind: kind, source: source))
    }

    /// Runs the CSS extractor over a finished `<style>` element.
    private func flushStyle() {
        guard let css = styleText else { return }
        styleText = nil
        css.withUnsafeBufferPointer {
            CSSLinkExtractor.scan($0, urlSource: "style[url]", importSource: "style @import", into: &result.links)
        }
    }

    private static let requisiteRelations: Set<Substring> = [
        "stylesheet", "icon", "apple-touch-icon", "apple-touch-icon-precomposed", "apple-touch-startup-image",
        "mask-icon", "manifest", "preload", "modulepreload", "prefetch",
    ]
    private static let navigationRelations: Set<Substring> = [
        "next", "prev", "previous", "first", "last", "up", "index", "contents", "start", "author", "license", "help",
    ]

    /// The kind of a `<link>` by its space-separated `rel` tokens; nil for relations not followed.
    static func kind(ofRelation rel: String) -> LinkKind? {
        let tokens = rel.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\u{0C}" })
        if tokens.contains(where: requisiteRelations.contains) { return .requisite }
        if tokens.contains(where: { $0 == "alternate" }) { return nil }
        if tokens.contains(where: navigationRelations.contains) { return .navigation }
        return nil
    }
}
