/// One URL reference of an HTML document, located in the document's original bytes.
public struct HTMLReference: Sendable, Equatable {
    public enum Role: Sendable, Equatable {
        /// A link to something (`href`, `src`, a `srcset` candidate, a CSS `url()`, …).
        case link
        /// The `href` of the document's first `<base>`.
        case base
    }

    /// The bytes of the reference in the original document, without surrounding whitespace.
    public let range: Range<Int>
    /// The reference as a String: decoded from the document's charset, character references
    /// (or CSS escapes) decoded, trimmed; not yet resolved.
    public let value: String
    public let role: Role
    /// Whether the bytes are part of an attribute value (where `&` must be written `&amp;`),
    /// rather than the text of a `<style>` element.
    public let inAttribute: Bool
    /// What following the link gives: a page to crawl or something this page needs.
    public let kind: LinkKind
    /// Where the reference is, e.g. `a[href]`, `img[srcset]`, `style[url]`, `link @import`.
    public let source: String
    /// Whether the link would likely end the user's session (see `ExtractedLink.endsSession`):
    /// only ever true for the `href` of an `a` or `area`.
    public internal(set) var endsSession: Bool

    public init(
        range: Range<Int>, value: String, role: Role, inAttribute: Bool, kind: LinkKind = .requisite,
        source: String = "", endsSession: Bool = false
    ) {
        self.range = range
        self.value = value
        self.role = role
        self.inAttribute = inAttribute
        self.kind = kind
        self.source = source
        self.endsSession = endsSession
    }
}
