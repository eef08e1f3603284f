/// The words of an HTML page as a reader finds them, for a search index: its title, its headings
/// (`h1`–`h6`), the names its elements are linked to by (`id`, and `name` of `a`: what a
/// reference page defines, `os.walk` or `cfg_extract_all`) and the rest of its text, read by
/// libxml2's HTML parser in the page's charset
/// (character references decoded). Left out: scripts, styles, templates, hidden elements, and the
/// navigation a site repeats on every page (`nav`, `footer`, `aside`, ARIA navigation,
/// banner, search and content-info roles, and elements whose class or id names a nav bar, side
/// bar, menu, breadcrumbs or related links, as documentation generators mark them).
public struct HTMLText: Sendable, Equatable {
    public var title = ""
    public var headings: [String] = []
    /// The names, separated by spaces.
    public var names = ""

    public var body = ""

    public init(title: String = "", headings: [String] = [], names: String = "", body: String = "") {
        self.title = title
        self.headings = headings
        self.names = names
        self.body = body
    }

    /// How much body text a page gives at most, in bytes.
    public static let bodyLimit = 1 << 20

    /// The text of `document`, at most `limit` bytes of body text.
    /// - Parameters:
    ///   - contentType: the HTTP `Content-Type`, which may name the charset.
    ///   - separatingHeadings: false to keep the headings' text in the body, where it stands.
    public static func extract(
        from document: some Collection<UInt8>, contentType: String?, limit: Int = bodyLimit,
        separatingHeadings: Bool = true
    ) -> HTMLText {
        let document = Array(document)
        let charset = CharsetSniffer.charset(contentType: contentType, prefix: Array(document.prefix(1024)))
        let reader = HTMLTextReader(limit: limit, separatingHeadings: separatingHeadings)
        HTMLSAXParser.parse(document, charset: charset, handler: reader)
        return reader.text()
    }
}
