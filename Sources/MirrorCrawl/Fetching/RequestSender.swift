import MirrorCache
import MirrorCore
import NIOHTTP1

/// Sends one request the crawl's way: with its User-Agent and its credentials where they may
/// go (answering an authentication challenge once), after its host's turn has come (`--delay`,
/// Crawl-delay), answered by what the cache stored since the crawl started (so a resumed crawl
/// does not fetch it again), its cookies kept, and logged (`--verbose`).
final class RequestSender: Sendable {
    private let client: CachingClient
    private let frontier: any CrawlFrontier
    private let session: CrawlSession
    private let userAgent: String
    /// Shares every response with the other workers of a shared crawl; nil for a crawl of one process.
    private let exchange: (any ResponseExchange)?
    private let events: (@Sendable (CrawlEvent) -> Void)?

    init(
        client: CachingClient, frontier: any CrawlFrontier, session: CrawlSession, userAgent: String,
        exchange: (any ResponseExchange)?, events: (@Sendable (CrawlEvent) -> Void)?
    ) {
        self.client = client
        self.frontier = frontier
        self.session = session
        self.userAgent = userAgent
        self.exchange = exchange
        self.events = events
    }

    @Sendable func send(_ original: CacheRequest) async throws -> CacheResponse {
        var request = session.authorized(original)
        request.reuseStoredSince = frontier.crawlStartedAt
        request.headers.replaceOrAdd(name: "User-Agent", value: userAgent)
        // Another worker of a shared crawl may have it already: then it comes from there.
        if let exchange, let shared = try await exchange.response(for: request) {
            events?(.request(url: request.url, status: shared.status, outcome: shared.outcome, bytes: shared.body.count, milliseconds: 0))
            return shared
        }
        var response = try await roundTrip(request)
        if let retry = try session.challenged(response, to: request) {
            request = retry
            response = try await roundTrip(request)
            _ = try session.challenged(response, to: request)
        }
        return response
    }

    /// One exchange through the cache, in its host's turn; what it set is kept, and it is shared
    /// with the other workers and logged.
    private func roundTrip(_ request: CacheRequest) async throws -> CacheResponse {
        try session.checkSession()
        let host = CrawlItem.host(of: request.url)
        let spaced = try await frontier.waitTurn(host)
        let sent = ContinuousClock.now
        let outcome: Result<CacheResponse, any Error>
        do { outcome = .success(try await client.fetch(request)) } catch { outcome = .failure(error) }
        if spaced { await frontier.requestEnded(host) }
        let response = try outcome.get()
        try await session.keepCookies(of: response, for: request)
        try await exchange?.share(response, for: request)
        events?(
            .request(
                url: request.url, status: response.status, outcome: response.outcome, bytes: response.body.count,
                milliseconds: Int((ContinuousClock.now - sent).seconds * 1000)))
        return response
    }
}
