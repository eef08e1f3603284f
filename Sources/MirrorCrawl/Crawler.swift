import Foundation
public import Logging
public import MirrorCache
import MirrorCore
public import MirrorCredentials
import MirrorLock
public import MirrorSite

/// A breadth-first crawl: seeds → frontier → scope → caching client → extractor → frontier,
/// with every saved response written to the offline folder as it arrives. The crawler runs the
/// workers' loop; each URL's steps are `ItemProcessor`'s, each step's work a type of its own
/// (`RequestSender`, `RetryingFetcher`, `RobotsGate`, `LinkReader`, `FrontierOffers`,
/// `FolderFinisher`, `PageLoader`…).
public final class Crawler: Sendable {
    public let configuration: CrawlConfiguration
    private let frontier: any CrawlFrontier
    private let recorder: ReportRecorder
    /// Why the frontier could not hand out more work (a shared crawl's database lost): the crawl ends with it.
    private let frontierFailure = Locked<(any Error)?>(nil)
    /// Called about once a second with the running totals (the CLI draws a progress line).
    private let reportProgress: (@Sendable (CrawlProgress) -> Void)?
    private let processor: ItemProcessor
    private let offers: FrontierOffers
    private let sitemaps: SitemapDiscovery?
    private let finisher: FolderFinisher
    private let adopter: ResponseAdopter
    /// The pages the browser loaded, waiting for the offline check; nil without a browser or a folder.
    private let checks: PageChecks?
    private let offlineCheck: OfflineCheck?
    /// Where the workers run: the client's executors near its connections, if it has any.
    private let nearbyExecutors: [any TaskExecutor]
    /// The user's headers, login and cookies, and the cookies the sites set: every request's
    /// credential fields come from here, for the crawl's own origins only.
    public let credentials: CrawlCredentials

    /// - Parameters:
    ///   - frontier: where the URLs wait; by default in this process and `journal`.
    ///   - searchIndexer: makes the folder's search index when the folder is finished (unless the
    ///     configuration says no index); nil for none.
    ///   - credentials: the user's login and cookies; by default the configuration's headers and
    ///     an empty cookie jar.
    public init(
        configuration: CrawlConfiguration, client: CachingClient, output: SiteWriter?, journal: CrawlJournal,
        frontier: (any CrawlFrontier)? = nil, exchange: (any ResponseExchange)? = nil,
        renderer: (any PageRenderer)? = nil, searchIndexer: (any SearchIndexer)? = nil, credentials: CrawlCredentials? = nil,
        logger: Logger = Logger(label: "mirror.crawl"),
        progress: (@Sendable (CrawlProgress) -> Void)? = nil, events: (@Sendable (CrawlEvent) -> Void)? = nil
    ) {
        let credentials = credentials ?? CrawlCredentials(configuration: configuration)
        let frontier = frontier ?? LocalFrontier(configuration: configuration, journal: journal)
        let recorder = ReportRecorder(logger: logger)
        let scope = ScopeRules(configuration: configuration)
        let robotsCache = RobotsCache(userAgent: configuration.userAgent)
        let session = CrawlSession(credentials: credentials, recorder: recorder, frontier: frontier)
        let sender = RequestSender(
            client: client, frontier: frontier, session: session, userAgent: configuration.userAgent,
            exchange: exchange, events: events)
        let robots = RobotsGate(obeyRobots: configuration.obeyRobots, robots: robotsCache, sender: sender, frontier: frontier)
        let links = LinkReader(
            journal: journal, scope: scope, readsText: configuration.searchIndex,
            ignoredParameters: configuration.ignoredParameters)
        let offers = FrontierOffers(
            frontier: frontier, scope: scope, credentials: credentials,
            sessionParameters: configuration.sessionParameters, recorder: recorder, logger: logger)
        let fetcher = RetryingFetcher(sender: sender, retries: configuration.retries)
        let finisher = FolderFinisher(
            store: client.store, output: output, journal: journal, links: links, seeds: configuration.seeds,
            searchIndexer: configuration.searchIndex ? searchIndexer : nil, events: events)
        let browser = renderer.map { renderer in
            (
                loader: PageLoader(
                    renderer: renderer, credentials: credentials, scope: scope, robots: robots, frontier: frontier,
                    sender: sender, recorder: recorder, events: events),
                copier: PageCopier(sender: sender)
            )
        }
        let checks = renderer == nil ? nil : output.map { PageChecks(siteFolder: $0.directory) }
        self.configuration = configuration
        self.nearbyExecutors = client.nearbyExecutors
        self.credentials = credentials
        self.frontier = frontier
        self.recorder = recorder
        self.reportProgress = progress
        self.processor = ItemProcessor(
            maxBytes: configuration.maxBytes, frontier: frontier, recorder: recorder, robots: robots,
            fetcher: fetcher, scope: scope, output: output, store: client.store, links: links, offers: offers,
            browser: browser, checks: checks, journal: journal)
        self.offers = offers
        self.sitemaps =
            configuration.sitemaps
            ? SitemapDiscovery(seeds: configuration.seeds, robots: robotsCache, sender: sender, scope: scope, offers: offers) : nil
        self.finisher = finisher
        self.adopter = ResponseAdopter(output: output, store: client.store, scope: scope, links: links)
        self.checks = checks
        if let browser, let output, let checks {
            offlineCheck = OfflineCheck(
                renderer: browser.loader.renderer, output: output, checks: checks, loader: browser.loader,
                copier: browser.copier, fetcher: fetcher, finisher: finisher,
                keepsScreenshots: configuration.keepsCheckScreenshots, recorder: recorder, events: events)
        } else {
            offlineCheck = nil
        }
    }

    /// Crawls until the frontier is empty or a budget is spent, then finishes the folder. With
    /// `resume`, continues the journal's crawl: URLs it finished are not fetched again.
    public func run(resume: Bool) async throws -> CrawlReport {
        _ = try await crawl(resume: resume)
        try await finishFolder()
        try await offlineCheck?.checkPages()
        return recorder.current
    }

    /// Crawls until the frontier is empty or a budget is spent; the folder holds what was saved,
    /// its links not rewritten yet (`finishFolder`).
    public func crawl(resume: Bool) async throws -> CrawlReport {
        let started = ContinuousClock.now
        recorder.report.withLock {
            $0.seeds = configuration.seeds
            $0.startedAt = Date().timeIntervalSince1970
        }
        checks?.clearLeftovers()
        if try await offers.seed(configuration.seeds, resume: resume), let sitemaps { try await sitemaps.discover() }
        let ticker = reportProgress.map { callback in
            Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    guard let self else { return }
                    callback(await self.progress(since: started))
                }
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<max(1, configuration.concurrency) {
                // Spread over the threads the transport's connections live on, when it has such.
                let executor = nearbyExecutors.isEmpty ? nil : nearbyExecutors[index % nearbyExecutors.count]
                PreferredExecutor.addTask(to: &group, on: executor) { await self.work(started: started) }
            }
        }
        ticker?.cancel()
        if let failure = frontierFailure.withLock({ $0 }) { throw failure }
        let pending = await frontier.pendingCount()
        await frontier.forget()
        let final = recorder.report.withLock { report -> CrawlReport in
            report.seconds = (ContinuousClock.now - started).seconds
            report.interrupted = Task.isCancelled
            report.incomplete = pending > 0 || report.interrupted
            return report
        }
        reportProgress?(await progress(since: started))
        return final
    }

    /// Rewrites the folder's links and writes its start page, manifest and search index.
    public func finishFolder() async throws {
        try await finisher.finish()
    }

    /// Saves in the folder what another worker of a shared crawl made of `url` (`ResponseAdopter`).
    public func adopt(_ url: String, response: CacheResponse) async throws {
        try await adopter.adopt(url, response: response)
    }

    private func work(started: ContinuousClock.Instant) async {
        while true {
            let next: CrawlItem?
            do { next = try await frontier.next() } catch {
                if !Task.isCancelled {
                    frontierFailure.withLock { $0 = $0 ?? error }
                    await frontier.stop()
                }
                return
            }
            guard let item = next else { return }
            if let maxDuration = configuration.maxDuration, ContinuousClock.now - started > maxDuration {
                await frontier.stop()
            } else {
                do {
                    try await processor.process(item)
                } catch let error where Task.isCancelled || error is SessionEnded {
                    // Interrupted, or the login ended: the URL stays queued, and the next run (--resume) fetches it.
                } catch {
                    recorder.failure(item, status: nil, message: "\(error)")
                    try? await frontier.record(item.url, .failed, status: nil, detail: "\(error)")
                }
            }
            await frontier.release(item)
        }
    }

    /// The running totals, for the progress line.
    private func progress(since started: ContinuousClock.Instant) async -> CrawlProgress {
        let queued = await frontier.pendingCount()
        return recorder.report.withLock { report in
            CrawlProgress(
                fetched: report.fetched, queued: queued, bytes: report.bytes, failures: report.failures.count,
                seconds: (ContinuousClock.now - started).seconds)
        }
    }
}
