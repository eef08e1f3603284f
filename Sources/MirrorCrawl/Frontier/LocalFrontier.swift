/// A crawl's frontier in this process (`Frontier`), its URLs recorded in the folder's journal
/// so that `--resume` continues where a killed crawl stopped.
public struct LocalFrontier: CrawlFrontier {
    private let queue: Frontier<ContinuousClock>
    private let journal: CrawlJournal
    private let budget: PageBudget

    public init(configuration: CrawlConfiguration, journal: CrawlJournal) {
        queue = Frontier(
            perHost: configuration.perHost, delay: configuration.delay ?? 0, robotsFirst: configuration.obeyRobots,
            clock: ContinuousClock())
        budget = PageBudget(maxPages: configuration.maxPages, maxPerHost: configuration.maxPagesPerHost)
        self.journal = journal
    }

    public var crawlStartedAt: Double { journal.crawlStartedAt }

    public func start(seeds: [CrawlItem], resume: Bool) throws -> CrawlStart {
        if resume {
            let (known, pending) = try journal.urls.resumePoint()
            if !known.isEmpty {
                _ = queue.markSeen(known)
                queue.enqueue(pending)
                return .resumed(known: known, pending: pending.count)
            }
        }
        let fresh = queue.markSeen(seeds.map(\.url))
        let items = zip(seeds, fresh).filter(\.1).map(\.0)
        try journal.urls.queued(items)
        queue.enqueue(items)
        return .fresh
    }

    public func next() async -> CrawlItem? { await queue.next() }
    public func fetched(_ item: CrawlItem) { queue.fetched(item) }
    public func release(_ item: CrawlItem) { queue.finished(item) }

    public func record(_ url: String, _ outcome: CrawlOutcome, status: Int?, detail: String?) throws {
        try journal.urls.finished(url, outcome, status: status, detail: detail)
    }

    public func firstSightings(_ urls: [String]) -> [Bool] { queue.markSeen(urls) }
    public func isSeen(_ url: String) -> Bool { queue.isSeen(url) }

    public func add(_ queued: [CrawlItem], skipped: [(CrawlItem, SkipReason)]) throws -> [Bool] {
        try journal.urls.queued(queued)
        queue.enqueue(queued)
        return skipped.map { _ in true }
    }

    public func waitTurn(_ host: String) async -> Bool { await queue.waitTurn(host) }
    public func requestEnded(_ host: String) { queue.requestEnded(host) }
    public func robotsKnown(_ host: String, crawlDelay: Double?) { queue.robotsKnown(host, crawlDelay: crawlDelay) }

    public func admitPage(host: String) async -> SkipReason? { await budget.admit(host: host) }
    public func pageEnded(host: String, saved: Bool) {
        if saved { budget.saved(host: host) } else { budget.release(host: host) }
    }

    public func pendingCount() -> Int { queue.pendingCount }
    public func stop() { queue.stop() }
    public func forget() { queue.forget() }
}
