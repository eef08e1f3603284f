/// One URL reference found in a document, exactly as written (entities or CSS escapes decoded,
/// surrounding whitespace trimmed) and not yet resolved against the page URL or `<base href>`.
public struct ExtractedLink: Sendable, Equatable, Hashable {
    public let reference: String
    public let kind: LinkKind
    /// Where the reference came from, e.g. `a[href]`, `img[srcset]`, `style[url]`, `css @import`.
    public let source: String
    /// Whether following the link would likely end the user's session: the `href` of an `a` or
    /// `area` whose URL, `title`, `aria-label`, `alt` (an `area`'s) or text reads as "log out"
    /// (`LogoutWords`). A crawl that carries a login does not follow it. False for all other links.
    public var endsSession: Bool

    public init(reference: String, kind: LinkKind, source: String, endsSession: Bool = false) {
        self.reference = reference
        self.kind = kind
        self.source = source
        self.endsSession = endsSession
    }

    /// A link for `raw` once trimmed, or nil when it names nothing to fetch: empty, fragment-only
    /// (`#x`), or a `javascript:`, `mailto:`, `tel:`, `data:`, `about:` or `blob:` URL.
    init?(raw: String, kind: LinkKind, source: String) {
        let reference = Self.trimmed(raw)
        guard Self.isFetchable(reference) else { return nil }
        self.init(reference: reference, kind: kind, source: source)
    }

    /// `raw` without leading and trailing ASCII whitespace (HTML's definition: tab, LF, FF, CR, space).
    static func trimmed(_ raw: String) -> String {
        let bytes = raw.utf8
        guard let first = bytes.firstIndex(where: { !isASCIIWhitespace($0) }) else { return "" }
        let end = bytes.index(after: bytes.lastIndex(where: { !isASCIIWhitespace($0) })!)
        if first == bytes.startIndex, end == bytes.endIndex { return raw }
        return String(decoding: bytes[first..<end], as: UTF8.self)
    }

    /// `bytes` without leading and trailing ASCII whitespace.
    static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var lower = 0
        var upper = bytes.count
        while lower < upper, isASCIIWhitespace(bytes[lower]) { lower += 1 }
        while upper > lower, isASCIIWhitespace(bytes[upper - 1]) { upper -= 1 }
        return UnsafeBufferPointer(rebasing: bytes[lower..<upper])
    }

    static func isASCIIWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D
    }

    private static let skippedSchemes: Set<String> = ["javascript", "mailto", "tel", "data", "about", "blob"]

    /// Whether `reference` (trimmed) names something to fetch; see `init?(raw:kind:source:)`.
    static func isFetchable(_ reference: String) -> Bool {
        let bytes = reference.utf8
        guard let first = bytes.first, first != UInt8(ascii: "#") else { return false }
        // A scheme is letters, digits, "+", "-", "." before the first ":" (RFC 3986 §3.1).
        var length = 0
        for byte in bytes {
            if byte == UInt8(ascii: ":") { break }
            let isSchemeByte =
                (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            guard isSchemeByte, length < 10 else { return true }
            length += 1
        }
        guard length > 0, length < bytes.count else { return true }
        return !skippedSchemes.contains(String(decoding: bytes.prefix(length), as: UTF8.self).lowercased())
    }
}
