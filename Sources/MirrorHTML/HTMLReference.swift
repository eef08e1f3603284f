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

    public init(range: Range<Int>, value: String, role: Role, inAttribute: Bool) {
        self.range = range
        self.value = value
        self.role = role
        self.inAttribute = inAttribute
    }
}
