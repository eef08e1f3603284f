/// What a link means to the crawler.
public enum LinkKind: String, Sendable, Equatable, Hashable {
    /// Another page: followed within scope and the depth limit (`a[href]`, `meta[refresh]`, …).
    case navigation
    /// Something the page needs to display (images, CSS, scripts, fonts, frames, media): fetched
    /// from any host and not counted against the depth limit.
    case requisite
}
