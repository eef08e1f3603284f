/// The words of an HTML page as a reader finds them, for a search index: its title, its headings
/// (`h1`–`h6`) and the rest of its text, read by libxml2's HTML parser in the page's charset
/// (character references decoded). Left out: scripts, styles, templates, hidden elements, and the
/// navigation a site repeats on every page (`nav`, `footer`, `aside`, ARIA navigation,
/// banner, search and content-info roles, and elements whose class or id names a nav bar, side
/// bar, menu, breadcrumbs or related links, as documentation generators mark them).
public struct HTMLText: Sendable, Equatable {
    public var title = ""
    public var headings: [String] = []
    public var body = ""

    public init(title: String = "", headings: [String] = [], body: String = "") {
        self.title = title
        self.headings = headings
        self.body = body
    }

    /// The text of `document`, at most `limit` bytes of body text.
    /// - Parameter contentType: the HTTP `Content-Type`, which may name the charset.
    public static func extract(from document: [UInt8], contentType: String?, limit: Int = 1 << 20) -> HTMLText {
        let charset = CharsetSniffer.charset(contentType: contentType, prefix: Array(document.prefix(1024)))
        let reader = Reader(limit: limit)
        HTMLSAXParser.parse(document, charset: charset, handler: reader)
        return reader.text()
    }
}

/// Collects the text as libxml2 reports it, element by element.
private final class Reader: HTMLEventHandler {
    /// (Not `header`: an article's often holds its `h1`; a site's banner has its role.)
    private static let leftOut: Set<String> = ["script", "style", "noscript", "template", "nav", "footer", "aside", "select", "svg",
                                               "head"]
    private static let leftOutRoles: Set<String> = ["navigation", "banner", "search", "contentinfo", "menu", "menubar"]
    /// Words of a class or id (split at `-` and `_`) that mark site navigation.
    private static let navigationWords: Set<String> = ["nav", "navbar", "navigation", "sidebar", "sphinxsidebar", "menu",
                                                       "breadcrumb", "breadcrumbs", "related", "footer"]
    private static let inline: Set<String> = ["a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "dfn", "em", "i", "kbd",
                                              "mark", "q", "s", "samp", "small", "span", "strong", "sub", "sup", "time", "tt",
                                              "u", "var", "wbr", "font"]
    private static let headings: Set<String> = ["h1", "h2", "h3", "h4", "h5", "h6"]

    let wantsText = true
    private let limit: Int
    /// Open elements, each with whether it is left out.
    private var open: [(name: String, leftOut: Bool)] = []
    private var leftOutDepth = 0
    private var titleText: [UInt8] = []
    private var heading: [UInt8] = []
    private var headingTexts: [String] = []
    private var body: [UInt8] = []
    private var inTitle = 0
    private var inHeading = 0

    init(limit: Int) {
        self.limit = limit
    }

    func startElement(_ nameBytes: UnsafeBufferPointer<UInt8>, attributes: [HTMLAttributeBytes]) {
        let name = String(decoding: nameBytes, as: UTF8.self)
        let leftOut = Self.leftOut.contains(name) || attributes.contains(where: Self.marksNavigation)
        open.append((name, leftOut))
        if leftOut { leftOutDepth += 1 }
        if name == "title" { inTitle += 1 }
        if Self.headings.contains(name) { inHeading += 1 }
        separate(name)
    }

    func endElement(_ nameBytes: UnsafeBufferPointer<UInt8>) {
        let name = String(decoding: nameBytes, as: UTF8.self)
        // libxml2 closes what the markup left open; an end tag with no open element is dropped.
        guard let index = open.lastIndex(where: { $0.name == name }) else { return }
        for element in open[index...].reversed() {
            if element.leftOut { leftOutDepth -= 1 }
            if element.name == "title" { inTitle -= 1 }
            if Self.headings.contains(element.name) {
                inHeading -= 1
                if inHeading == 0 { finishHeading() }
            }
            separate(element.name)
        }
        open.removeSubrange(index...)
    }

    func characters(_ text: UnsafeBufferPointer<UInt8>) {
        if inTitle > 0 {
            if titleText.count < 1024 { titleText.append(contentsOf: text) }
        } else if leftOutDepth == 0 {
            if inHeading > 0 {
                heading.append(contentsOf: text)
            } else if body.count < limit {
                body.append(contentsOf: text.prefix(limit - body.count))
            }
        }
    }

    /// A block element's edge separates words; an inline one's does not (`walk<b>ing</b>`).
    private func separate(_ name: String) {
        guard !Self.inline.contains(name) else { return }
        if inHeading > 0 { heading.append(0x20) } else if leftOutDepth == 0 && body.count < limit { body.append(0x20) }
    }

    private func finishHeading() {
        let text = Self.collapsed(heading)
        if !text.isEmpty && leftOutDepth == 0 { headingTexts.append(text) }
        heading.removeAll()
    }

    func text() -> HTMLText {
        if !heading.isEmpty { finishHeading() }
        return HTMLText(title: Self.collapsed(titleText), headings: headingTexts, body: Self.collapsed(body))
    }

    private static func marksNavigation(_ attribute: HTMLAttributeBytes) -> Bool {
        let name = String(decoding: attribute.name, as: UTF8.self)
        guard ["hidden", "aria-hidden", "role", "class", "id"].contains(name) else { return false }
        let value = String(decoding: attribute.value, as: UTF8.self).lowercased()
        switch name {
        case "hidden": return true
        case "aria-hidden": return value == "true"
        case "role": return leftOutRoles.contains(value)
        default: return value.split(whereSeparator: { $0 == " " || $0 == "-" || $0 == "_" }).contains { navigationWords.contains(String($0)) }
        }
    }

    /// UTF-8 text with runs of ASCII white space (HTML's: space, tab, LF, FF, CR) made one space,
    /// trimmed; done on bytes, as Swift's Character-wise split is slower than the whole parse.
    private static func collapsed(_ bytes: [UInt8]) -> String {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var pendingSpace = false
        for byte in bytes {
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D {
                pendingSpace = !result.isEmpty
            } else {
                if pendingSpace { result.append(0x20) }
                pendingSpace = false
                result.append(byte)
            }
        }
        return String(decoding: result, as: UTF8.self)
    }
}
