import MirrorHTML

/// The links of one page, resolved against it and normalized: what the crawl needs from a
/// page besides its bytes. Kept in the journal by page, body digest and type, so a re-crawl
/// of an unchanged page (answered by the cache or a 304) neither parses nor resolves it again.
struct PageLinks: Equatable {
    struct Link: Hashable {
        let url: String
        let kind: LinkKind
        /// A link that would end a login session ("Log out"): not followed while the crawl carries credentials.
        var endsSession = false
    }

    var links: [Link] = []

    /// One line per link, "n URL", "x URL" (a navigation link that ends a session) or "r URL"
    /// (normalized URLs hold no spaces or line breaks).
    var encoded: [UInt8] {
        var bytes: [UInt8] = []
        for link in links {
            bytes.append(link.kind == .requisite ? UInt8(ascii: "r") : link.endsSession ? UInt8(ascii: "x") : UInt8(ascii: "n"))
            bytes.append(UInt8(ascii: " "))
            bytes.append(contentsOf: link.url.utf8)
            bytes.append(UInt8(ascii: "\n"))
        }
        return bytes
    }

    init(links: [Link]) {
        self.links = links
    }

    /// Reads `encoded`; nil when the bytes are not in that form.
    init?(encoded bytes: [UInt8]) {
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            guard line.count > 2, line[line.startIndex + 1] == UInt8(ascii: " ") else { return nil }
            let kind: LinkKind
            switch line.first {
            case UInt8(ascii: "n"), UInt8(ascii: "x"): kind = .navigation
            case UInt8(ascii: "r"): kind = .requisite
            default: return nil
            }
            links.append(
                Link(
                    url: String(decoding: line.dropFirst(2), as: UTF8.self), kind: kind,
                    endsSession: line.first == UInt8(ascii: "x")))
        }
    }
}
