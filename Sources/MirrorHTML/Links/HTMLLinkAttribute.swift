/// How one start-tag attribute refers to URLs: the table shared by the link extractor and the
/// reference locator, so that what is crawled and what is rewritten cannot drift apart.
enum HTMLLinkAttribute: Sendable, Equatable {
    /// The whole value is one URL.
    case url(LinkKind, source: String)
    /// A `srcset`-like list of image candidates.
    case srcset(source: String)
    /// `<meta http-equiv=refresh content="5; url=…">`.
    case metaRefresh
    /// An inline style sheet (`style` attribute).
    case style(source: String)
    /// `<base href>`: not a link, the base of every relative link.
    case base

    /// The role of the attribute `name` on `element` (both lower-cased); nil when it names no URL.
    /// - Parameter attributes: all of the tag's attributes (for `rel`, `type`, `http-equiv`).
    static func role(
        of name: UnsafeBufferPointer<UInt8>, element: UnsafeBufferPointer<UInt8>, attributes: UnsafeBufferPointer<HTMLAttributeBytes>
    ) -> HTMLLinkAttribute? {
        // Most attributes name no URL: turned away before any String is made.
        guard linkNames.contains(where: name.spells) else { return nil }
        return role(of: name.string, element: element.string) { attributes[$0]?.string }
    }

    private static let linkNames: [StaticString] = [
        "href", "xlink:href", "src", "srcset", "imagesrcset", "data-srcset", "data-src", "poster", "data", "background",
        "content", "style",
    ]

    private static func role(of name: String, element: String, attributes: (StaticString) -> String?) -> HTMLLinkAttribute? {
        switch (name, element) {
        // The commonest, spelled out: an interpolated string is made anew at each link.
        case ("href", "a"):
            return .url(.navigation, source: "a[href]")
        case ("href", "area"):
            return .url(.navigation, source: "area[href]")
        case ("href", "link"):
            return HTMLLinkExtractor.kind(ofRelation: attributes("rel") ?? "").map { .url($0, source: "link[href]") }
        case ("href", "base"):
            return .base
        case ("href", "image"), ("href", "use"), ("xlink:href", "image"), ("xlink:href", "use"):
            return .url(.requisite, source: "\(element)[\(name)]")
        case ("xlink:href", "a"):
            return .url(.navigation, source: "a[xlink:href]")
        case ("src", "img"), ("src", "source"), ("src", "script"), ("src", "iframe"), ("src", "frame"),
            ("src", "embed"), ("src", "video"), ("src", "audio"), ("src", "track"):
            return .url(.requisite, source: "\(element)[src]")
        case ("src", "input"):
            return attributes("type")?.lowercased() == "image" ? .url(.requisite, source: "input[src]") : nil
        case ("srcset", "img"), ("srcset", "source"), ("imagesrcset", "link"):
            return .srcset(source: "\(element)[\(name)]")
        case ("data-srcset", _):
            return .srcset(source: "\(element)[data-srcset]")
        case ("data-src", _):
            return .url(.requisite, source: "\(element)[data-src]")
        case ("poster", "video"), ("data", "object"), ("background", "body"), ("background", "table"),
            ("background", "td"), ("background", "th"):
            return .url(.requisite, source: "\(element)[\(name)]")
        case ("content", "meta"):
            return attributes("http-equiv")?.lowercased() == "refresh" ? .metaRefresh : nil
        case ("style", _):
            return .style(source: "\(element)[style]")
        default:
            return nil
        }
    }
}
