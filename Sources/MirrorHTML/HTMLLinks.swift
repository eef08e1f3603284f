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
}
