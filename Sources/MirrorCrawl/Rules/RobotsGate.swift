import MirrorCache
import MirrorCore

/// What a host's robots.txt says of a URL, read first if need be (through the crawl's requests)
/// and its Crawl-delay handed to the frontier; every URL allowed with --ignore-robots.
struct RobotsGate: Sendable {
    enum Answer {
        case allowed
        case disallowed
        /// robots.txt could not be had (5xx, unreachable): nothing of the host may be fetched.
        case unusable(String)
    }

    let obeyRobots: Bool
    let robots: RobotsCache
    let sender: RequestSender
    let frontier: any CrawlFrontier

    /// The answer for `url`, whose normalized form is `normalized`.
    func answer(for url: URLParts, normalized: String) async throws -> Answer {
        guard obeyRobots else { return .allowed }
        let verdict = await robots.rules(for: url, send: sender.send)
        try await frontier.robotsKnown(CrawlItem.host(of: normalized), crawlDelay: verdict.rules.crawlDelay)
        if let problem = verdict.problem { return .unusable(problem) }
        // By bytes: a host ending in a prepended mark makes one `Character` with the `/` after it.
        let path = String(Substring(normalized.utf8.dropFirst(url.origin.utf8.count)))
        return verdict.rules.allows(path) ? .allowed : .disallowed
    }
}
