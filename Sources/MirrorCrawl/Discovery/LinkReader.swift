import MirrorCache
import MirrorCore
import MirrorHTML

/// Reads the links of saved pages: from the journal when a page had the same body before, else
/// extracted (libxml2 or the CSS tokenizer), resolved in the crawl's scope, and recorded there;
/// with `--browser`, joined by what the browser found.
struct LinkReader: Sendable {
    let journal: CrawlJournal
    let scope: ScopeRules
    /// Whether pages' text is kept for the search index.
    let readsText: Bool
    let ignoredParameters: [URLPattern]

    /// The links of a saved page: from the journal when this page had the same body before,
    /// else extracted (libxml2 or the CSS tokenizer), resolved, and recorded there — for an
    /// HTML page with its located references, so that the folder's rewriting parses it no more.
    func pageLinks(in response: CacheResponse, url: URLParts, contentType: String?) throws -> PageLinks {
        let type = (contentType ?? "").lowercased()
        let isHTML = Self.isHTML(contentType, url: url)
        let isCSS = type.containsBytes("text/css") || (contentType == nil && url.path.hasSuffix(".css"))
        guard isHTML || isCSS else { return PageLinks(links: []) }
        let key = response.entry.map { pageKey(digest: $0.digest, contentType: contentType) }
        if let key, let known = try journal.pages.links(of: url.normalized, key: key) { return known }
        let body = try response.body.collect(limit: 64 << 20)
        var found: [ExtractedLink]
        var references: [HTMLReference] = []
        var text: HTMLText?
        var base = url
        if isCSS {
            found = CSSLinkExtractor.links(in: String(decoding: body, as: UTF8.self))
        } else {
            let locator = HTMLReferenceLocator(charset: CharsetSniffer.charset(contentType: contentType, prefix: Array(body.prefix(1024))))
            locator.feed(body)
            references = locator.finish(readingText: readsText)
            text = locator.text
            let extracted = locator.links
            found = extracted.links
            if let href = extracted.baseHref, let resolved = url.resolve(href) { base = resolved }
        }
        let links = PageLinks(links: resolved(found, against: base))
        if let key { try journal.pages.record(links, references: references, text: text, of: url.normalized, key: key) }
        return links
    }

    /// The page's links with what the browser found: the rendered DOM's links (pages) and frames,
    /// the URLs the page loaded (requisites, so each is saved and found offline under its name),
    /// and the links of the snapshot when there is one.
    func browserLinks(_ page: RenderedPage, of url: URLParts, adding known: PageLinks) -> PageLinks {
        var found = page.links.map { ExtractedLink(reference: $0, kind: .navigation, source: "browser a[href]") }
        found += (page.frames + page.requested).map { ExtractedLink(reference: $0, kind: .requisite, source: "browser request") }
        if let snapshot = page.snapshot {
            let locator = HTMLReferenceLocator(charset: "utf-8")
            locator.feed(snapshot)
            _ = locator.finish()
            found += locator.links.links
        }
        var seen = Set(known.links)
        var links = known.links
        for link in resolved(found, against: url) where seen.insert(link).inserted { links.append(link) }
        return PageLinks(links: links)
    }

    static func isHTML(_ contentType: String?, url: URLParts) -> Bool {
        let type = (contentType ?? "").lowercased()
        return type.containsBytes("text/html") || type.containsBytes("xhtml") || (contentType == nil && url.path.hasSuffix(".html"))
    }

    /// The distinct links of a page, resolved and normalized, in document order. Each target is
    /// resolved once however many fragments point into it (keyed by bytes: Strings compare by
    /// canonical equivalence, but two spellings of `é` resolve to different URLs).
    private func resolved(_ found: [ExtractedLink], against base: URLParts) -> [PageLinks.Link] {
        var targets: [UTF8Key: String?] = [:]
        var seen = Set<PageLinks.Link>()
        var links: [PageLinks.Link] = []
        for link in found {
            let url: String?
            if let target = URLParts.splitAtFragment(link.reference)?.target {
                url = targets.memoized(UTF8Key(target)) { scope.resolve(String(target), against: base) }
            } else {
                url = scope.resolve(link.reference, against: base)
            }
            guard let url else { continue }
            let resolvedLink = PageLinks.Link(url: url, kind: link.kind, endsSession: link.endsSession)
            if seen.insert(resolvedLink).inserted { links.append(resolvedLink) }
        }
        return links
    }

    /// What a page's links and references depend on besides its URL: its body, its type (the
    /// charset), the query parameters the crawl ignores, and the version of `StoredReferences`.
    func pageKey(digest: String, contentType: String?) -> String {
        Self.pageKey(digest: digest, contentType: contentType, ignoredParameters: ignoredParameters)
    }

    static func pageKey(digest: String, contentType: String?, ignoredParameters: [URLPattern]) -> String {
        [digest, (contentType ?? "").lowercased(), ignoredParameters.map(\.source).joined(separator: " "), StoredReferences.version]
            .joined(separator: "\n")
    }
}
