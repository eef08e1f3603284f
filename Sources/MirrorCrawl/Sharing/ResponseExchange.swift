public import MirrorCache

/// The responses of a crawl that several workers share (`mirror crawl --shared`): each worker
/// asks it before a request, and gives it every response it receives, so that a URL one worker
/// fetched is not fetched by another (robots.txt, a page's requisites) and every worker can
/// make the whole folder at the end.
public protocol ResponseExchange: Sendable {
    /// The response another worker received for `request` in this crawl, brought into this
    /// worker's cache (outcome `.shared`); nil when none did.
    func response(for request: CacheRequest) async throws -> CacheResponse?
    /// Gives the others a response this worker received.
    func share(_ response: CacheResponse, for request: CacheRequest) async throws
}

extension CacheOutcome {
    /// Received by another worker of a shared crawl, and brought into this cache from the crawl's store.
    public static let shared = CacheOutcome(rawValue: "shared")
}
