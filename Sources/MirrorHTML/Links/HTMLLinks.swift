/// Everything the link extractor found in one HTML document.
public struct HTMLLinks: Sendable, Equatable {
    /// Links in document order; a `<style>` block's links come at the block's position.
    public var links: [ExtractedLink]
    /// The first `<base href>`, trimmed and unresolved; links resolve against it when present.
    public var baseHref: String?

    public init(links: [ExtractedLink] = [], baseHref: String? = nil) {
        self.links = links
        self.baseHref = baseHref
    }

    /// The links and base of a document's located references (`HTMLReferenceLocator`).
    public init(references: [HTMLReference]) {
        links = []
        links.reserveCapacity(references.count)
        for reference in references {
            switch reference.role {
            case .link:
                links.append(
                    ExtractedLink(
                        reference: reference.value, kind: reference.kind, source: reference.source,
                        endsSession: reference.endsSession))
            case .base: baseHref = reference.value
            }
        }
    }
}
