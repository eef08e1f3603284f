import Logging
import MirrorCore
import MirrorCredentials
import MirrorHTML
import MirrorLock

/// Offers URLs to the frontier: the seeds, then each page's links, queued when they are new, in
/// scope and not a session-id variant of a page already claimed; the others counted as skips once.
final class FrontierOffers: Sendable {
    private let frontier: any CrawlFrontier
    private let scope: ScopeRules
    private let credentials: CrawlCredentials
    private let recorder: ReportRecorder
    private let sessionTraps: Locked<SessionTraps>
    private let logger: Logger

    init(
        frontier: any CrawlFrontier, scope: ScopeRules, credentials: CrawlCredentials, sessionParameters: Set<String>,
        recorder: ReportRecorder, logger: Logger
    ) {
        self.frontier = frontier
        self.scope = scope
        self.credentials = credentials
        self.recorder = recorder
        self.sessionTraps = Locked(SessionTraps(parameters: sessionParameters))
        self.logger = logger
    }

    /// Queues the seeds, or the journal's pending URLs when resuming; true for a fresh start.
    func seed(_ seedURLs: [String], resume: Bool) async throws -> Bool {
        let seeds = seedURLs.compactMap(URLNormalizer.normalize).map {
            CrawlItem(url: $0, depth: 0, role: .page, hops: 0, referrer: nil)
        }
        switch try await frontier.start(seeds: seeds, resume: resume) {
        case .fresh:
            return true
        case .resumed(let known, let pending):
            sessionTraps.withLock { traps in
                for url in known { if let page = traps.page(of: url) { _ = traps.claim(page) } }
            }
            logger.info("resuming: \(known.count - pending) URLs done, \(pending) to go")
            return false
        case .joined:
            return false
        }
    }

    /// Turns a page's links into frontier items, checking scope and recording skips. While the
    /// crawl holds a session with the page's site, a link that would end it is not followed.
    func discover(_ page: PageLinks, from item: CrawlItem) async throws {
        var offers: [CrawlItem] = []
        let holdsSession = URLParts(item.url).map(credentials.holdsSession) ?? false
        let loggingOut =
            holdsSession
            ? Set(
                page.links.filter { link in
                    link.kind == .navigation && (link.endsSession || LogoutWords.matches(link.url))
                }.map(\.url)) : []
        for link in page.links {
            // A requisite page (a frame) contributes its requisites only.
            if item.role == .requisite && link.kind == .navigation { continue }
            if link.kind == .navigation && loggingOut.contains(link.url) { continue }
            let role: CrawlRole = link.kind == .navigation ? .page : .requisite
            let depth = role == .page ? item.depth + 1 : item.depth
            offers.append(CrawlItem(url: link.url, depth: depth, role: role, hops: 0, referrer: item.url))
        }
        try await offer(
            offers,
            refusing: loggingOut.sorted().map { url in
                (CrawlItem(url: url, depth: item.depth + 1, role: .page, hops: 0, referrer: item.url), .logout)
            })
    }

    /// Queues the items not seen before that are in scope (their URLs are normalized), and
    /// counts the others' skips once, with those of `refusals` (refused already).
    func offer(_ offers: [CrawlItem], refusing refusals: [(CrawlItem, SkipReason)] = []) async throws {
        var accepted: [CrawlItem] = []
        let fresh = try await frontier.firstSightings(offers.map(\.url) + refusals.map(\.0.url))
        var refused = zip(refusals, fresh.dropFirst(offers.count)).filter(\.1).map(\.0)
        for (item, isNew) in zip(offers, fresh) where isNew {
            guard let parts = URLParts(item.url) else { continue }
            if let reason = scope.check(parts, normalized: item.url, role: item.role, depth: item.depth) {
                refused.append((item, reason))
                continue
            }
            if let page = sessionTraps.withLock({ $0.page(of: item.url) }),
                try await frontier.isSeen(page) || !sessionTraps.withLock({ $0.claim(page) })
            {
                refused.append((item, .sessionID))
                continue
            }
            accepted.append(item)
        }
        let recorded = try await frontier.add(accepted, skipped: refused)
        for ((item, reason), isNew) in zip(refused, recorded) where isNew { recorder.skip(item, reason) }
    }
}
