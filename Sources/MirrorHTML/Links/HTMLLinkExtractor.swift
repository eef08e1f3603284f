/// Finds every URL an HTML page refers to: fed in chunks as the body arrives, read by libxml2
/// once it is complete (see `HTMLSAXParser`).
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
/// The links are the references `HTMLReferenceLocator` finds, so what is crawled and what is
/// rewritten come from one libxml2 pass and cannot drift apart.
/// An `a` or `area` link whose URL, title or text reads as "log out" `endsSession` (see
/// `HTMLReferenceLocator` and `LogoutWords`).
/// One instance serves one document and one task at a time.
public final class HTMLLinkExtractor {
    private let locator: HTMLReferenceLocator

    /// - Parameter charset: the document's encoding (see `CharsetSniffer`); attribute values and
    ///   `<style>` text are decoded with it.
    public init(charset: String = "utf-8") {
        locator = HTMLReferenceLocator(charset: charset)
    }

    /// Adds the next chunk of the body.
    public func feed(_ bytes: [UInt8]) {
        locator.feed(bytes)
    }

    /// Parses the document and returns what was found.
    public func finish() -> HTMLLinks {
        _ = locator.finish()
        return locator.links
    }

    /// Extracts the links of a whole document.
    public static func links(in html: [UInt8], charset: String = "utf-8") -> HTMLLinks {
        let extractor = HTMLLinkExtractor(charset: charset)
        extractor.feed(html)
        return extractor.finish()
    }

    private static let requisiteRelations: Set<Substring> = [
        "stylesheet", "icon", "apple-touch-icon", "apple-touch-icon-precomposed", "apple-touch-startup-image",
        "mask-icon", "manifest", "preload", "modulepreload", "prefetch",
    ]
    private static let navigationRelations: Set<Substring> = [
        "next", "prev", "previous", "first", "last", "up", "index", "contents", "start", "author", "license", "help",
    ]

    /// The kind of a `<link>` by its `rel` tokens, split at ASCII white space by bytes as browsers
    /// do (a mark after a space makes one `Character` with it); nil for relations not followed.
    static func kind(ofRelation rel: String) -> LinkKind? {
        let tokens = rel.lowercased().utf8.split(whereSeparator: { [0x20, 0x09, 0x0A, 0x0D, 0x0C].contains($0) }).map(Substring.init)
        if tokens.contains(where: requisiteRelations.contains) { return .requisite }
        if tokens.contains(where: { $0 == "alternate" }) { return nil }
        if tokens.contains(where: navigationRelations.contains) { return .navigation }
        return nil
    }
}
