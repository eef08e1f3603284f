/// Why a discovered URL was not fetched, for the report ("why was URL X not fetched?").
public enum SkipReason: String, Sendable, Codable, CaseIterable {
    case depth = "depth limit"
    case offsite = "host not allowed"
    case excluded = "matched --exclude"
    case notIncluded = "no --include matched"
    case robots = "disallowed by robots.txt"
    case urlTooLong = "URL too long"
    case repeatedSegments = "repeated path segments (trap)"
    case sessionID = "session id in the query (trap)"
    case pagesPerHost = "pages-per-host limit"
    case maxPages = "--max-pages reached"
    case budget = "byte or time budget reached"
    case requisitesOff = "requisite from another host (--no-requisites)"
    case redirectLimit = "too many redirects"
    case redirectLoop = "redirect loop"
    case tooLarge = "larger than --max-file-size"
    case offlineMiss = "not in the cache (--offline)"
}
