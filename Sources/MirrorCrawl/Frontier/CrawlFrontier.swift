/// Where a crawl's URLs wait and what became of them, and the rules they are handed out under:
/// breadth-first order, per-host concurrency and spacing, robots.txt first, the page budget.
/// `LocalFrontier` keeps them in this process and the folder's journal; a shared crawl keeps
/// them in a database that several workers use at once (`MirrorShared`).
public protocol CrawlFrontier: Sendable {
    /// When the crawl started (seconds since 1970): what the cache stored since then is the
    /// crawl's own and is reused rather than fetched again.
    var crawlStartedAt: Double { get }

    /// Queues the seeds, or with `resume` continues the crawl the frontier holds.
    func start(seeds: [CrawlItem], resume: Bool) async throws -> CrawlStart

    /// The next item to fetch, once its host has a free slot; waits while none is ready; nil when
    /// nothing is queued and nothing is being fetched (the crawl is done) or after `stop()`.
    func next() async throws -> CrawlItem?
    /// The requests of an item handed out by `next()` are over (its response is whole): its host
    /// may take another item while this one is parsed and saved.
    func fetched(_ item: CrawlItem) async
    /// An item handed out by `next()` is over (its outcome recorded with `record`, or not at all
    /// when the crawl was interrupted: it is then fetched again by the next run).
    func release(_ item: CrawlItem) async
    /// What became of an item handed out by `next()`.
    func record(_ url: String, _ outcome: CrawlOutcome, status: Int?, detail: String?) async throws

    /// For each URL, whether the crawl sees it for the first time. Each one reported new is then
    /// passed to `add` (queued or skipped), which settles a race between workers.
    func firstSightings(_ urls: [String]) async throws -> [Bool]
    /// Whether `url` was seen by the crawl.
    func isSeen(_ url: String) async throws -> Bool
    /// Queues `queued` and records `skipped` as not fetched; returns, for each skipped item,
    /// whether this call recorded it (false when another worker had, so it is counted once).
    func add(_ queued: [CrawlItem], skipped: [(CrawlItem, SkipReason)]) async throws -> [Bool]

    /// Waits until `host` may receive another request and books it; true when `requestEnded`
    /// must follow (the request's end counts for the spacing).
    func waitTurn(_ host: String) async throws -> Bool
    /// A request that waited its turn has ended.
    func requestEnded(_ host: String) async
    /// `host`'s robots.txt was read: its other URLs may start, `crawlDelay` apart at least.
    func robotsKnown(_ host: String, crawlDelay: Double?) async throws

    /// Counts a page of `host` in flight under `--max-pages` and `--max-pages-per-host` and
    /// returns nil, or returns the limit reached.
    func admitPage(host: String) async throws -> SkipReason?
    /// An admitted page was saved (`true`) or ended unsaved, leaving its place to another.
    func pageEnded(host: String, saved: Bool) async

    /// URLs still queued (the progress line, and whether the crawl ended early).
    func pendingCount() async -> Int
    /// Hands out no more items.
    func stop() async
    /// The workers are done: what the frontier holds in memory may go.
    func forget() async
}

/// How a crawl began.
public enum CrawlStart: Sendable {
    /// From its seeds.
    case fresh
    /// Where an earlier run stopped: the URLs it knew, and how many of them are still to fetch.
    case resumed(known: [String], pending: Int)
    /// As one of several workers of a crawl already under way.
    case joined
}
