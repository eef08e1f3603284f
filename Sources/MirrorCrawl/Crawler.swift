public import Logging
public import MirrorCache
import MirrorCore
import MirrorCompression
public import MirrorCredentials
import MirrorHTML
import MirrorSearch
public import MirrorSite
import NIOHTTP1
import Foundation
import Synchronization

/// A breadth-first crawl: seeds → frontier → scope → caching client → extractor → frontier,
/// with every saved response written to the offline folder as it arrives.
public final class Crawler: Sendable {
    public let configuration: CrawlConfiguration
    let client: CachingClient
    /// The folder written as responses arrive; nil for a crawl that only fetches (a worker of a
    /// shared crawl without `-o`, or whose folder is made once the crawl is done).
    let output: SiteWriter?
    /// The folder's journal: its pages' links and references, and its saved resources.
    private let journal: CrawlJournal
    let scope: ScopeRules
    let robots: RobotsCache
    let frontier: any CrawlFrontier
    let report = Mutex(CrawlReport())
    /// Why the frontier could not hand out more work (a shared crawl's database lost): the crawl ends with it.
    private let frontierFailure = Mutex<(any Error)?>(nil)
    private let sessionTraps: Mutex<SessionTraps>
    private let logger: Logger
    /// Called about once a second with the running totals (the CLI draws a progress line).
    private let progress: (@Sendable (CrawlProgress) -> Void)?
    /// Called for every request sent and each phase begun (the CLI's `--verbose`).
    let events: (@Sendable (CrawlEvent) -> Void)?
    /// Loads each saved page in a browser (`--browser`); nil for a crawl of the bytes alone.
    let renderer: (any PageRenderer)?
    /// The pages the browser loaded, waiting for the offline check; nil without a browser or a folder.
    let checks: PageChecks?

    /// Shares every response with the other workers of a shared crawl; nil for a crawl of one process.
    let exchange: (any ResponseExchange)?
    /// The user's headers, login and cookies, and the cookies the sites set: every request's
    /// credential fields come from here, for the crawl's own origins only.
    public let credentials: CrawlCredentials
    /// Set when a response deleted a cookie the user gave: no request is sent after it.
    let sessionEnd = Mutex<SessionEnded?>(nil)

    /// - Parameters:
    ///   - frontier: where the URLs wait; by default in this process and `journal`.
    ///   - credentials: the user's login and cookies; by default the configuration's headers and
    ///     an empty cookie jar.
    public init(configuration: CrawlConfiguration, client: CachingClient, output: SiteWriter?, journal: CrawlJournal,
                frontier: (any CrawlFrontier)? = nil, exchange: (any ResponseExchange)? = nil,
                renderer: (any PageRenderer)? = nil, credentials: CrawlCredentials? = nil, logger: Logger = Logger(label: "mirror.crawl"),
                progress: (@Sendable (CrawlProgress) -> Void)? = nil, events: (@Sendable (CrawlEvent) -> Void)? = nil) {
        self.configuration = configuration
        self.credentials = credentials ?? CrawlCredentials(configuration: configuration)
        self.client = client
        self.output = output
        self.journal = journal
        self.scope = ScopeRules(configuration: configuration)
        self.robots = RobotsCache(userAgent: configuration.userAgent)
        self.frontier = frontier ?? LocalFrontier(configuration: configuration, journal: journal)
        self.exchange = exchange
        self.sessionTraps = Mutex(SessionTraps(parameters: configuration.sessionParameters))
        self.logger = logger
        self.progress = progress
        self.events = events
        self.renderer = renderer
        checks = renderer == nil ? nil : output.map { PageChecks(siteFolder: $0.directory) }
    }

    /// Crawls until the frontier is empty or a budget is spent, then finishes the folder. With
    /// `resume`, continues the journal's crawl: URLs it finished are not fetched again.
    public func run(resume: Bool) async throws -> CrawlReport {
        _ = try await crawl(resume: resume)
        try await finishFolder()
        try await checkPages()
        return report.withLock { $0 }
    }

    /// Crawls until the frontier is empty or a budget is spent; the folder holds what was saved,
    /// its links not rewritten yet (`finishFolder`).
    public func crawl(resume: Bool) async throws -> CrawlReport {
        let started = ContinuousClock.now
        report.withLock {
            $0.seeds = configuration.seeds
            $0.startedAt = Date().timeIntervalSince1970
        }
        checks?.clearLeftovers()
        if try await seedFrontier(resume: resume), configuration.sitemaps { try await discoverSitemaps() }
        let ticker = progress.map { callback in
            Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    guard let self else { return }
                    callback(await self.snapshot(since: started))
                }
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<max(1, configuration.concurrency) {
                group.addTask { await self.work(started: started) }
            }
        }
        ticker?.cancel()
        if let failure = frontierFailure.withLock({ $0 }) { throw failure }
        let pending = await frontier.pendingCount()
        await frontier.forget()
        let final = report.withLock { report -> CrawlReport in
            report.seconds = (ContinuousClock.now - started).seconds
            report.interrupted = Task.isCancelled
            report.incomplete = pending > 0 || report.interrupted
            return report
        }
        progress?(await snapshot(since: started))
        return final
    }

    /// Rewrites the folder's links and writes its start page, manifest and search index.
    public func finishFolder() async throws {
        // The cache's flush to disk waits on I/O while the folder's rewriting is CPU work: both at
        // once. The flush is for the cache; the folder is rebuilt from it (or by --resume) if a
        // power loss takes its last writes.
        let flush = Task.detached { [store = client.store] in try? store.synchronize() }
        if output != nil { events?(.phase("finishing the folder (links, index.html, manifest)")) }
        let finished = Result {
            try journal.flush()
            let known: SiteWriter.KnownReferences = { [journal, self] url, resource in
                try? journal.references(of: url, key: pageKey(digest: resource.sha256, contentType: resource.contentType))
            }
            let index = configuration.searchIndex ? output.map { indexer(folder: $0.directory) } : nil
            try output?.finish(seeds: configuration.seeds.compactMap(URLNormalizer.normalize), knownReferences: known, searchIndex: index)
        }
        await flush.value
        try finished.get()
    }

    /// What makes the folder's search index from the ledger's pages, with the text the journal
    /// kept when each body was parsed (a page saved as its browser snapshot, or parsed by a crawl
    /// without the index, is read from its file).
    private func indexer(folder: String) -> @Sendable (any SiteLedger) throws -> SiteManifest.FileDigest {
        let (journal, events, ignored) = (journal, events, configuration.ignoredParameters)
        return { ledger in
            events?(.phase("indexing the pages for mirror search"))
            return try SearchIndexBuilder.update(folder: folder, slices: { ledger.resourceSlices() }, knownText: { page in
                let key = Self.pageKey(digest: page.resource.sha256, contentType: page.resource.contentType, ignoredParameters: ignored)
                return try? journal.text(of: page.url, key: key)
            })
        }
    }

    /// Queues the seeds, or the journal's pending URLs when resuming; true for a fresh start.
    private func seedFrontier(resume: Bool) async throws -> Bool {
        let seeds = configuration.seeds.compactMap(URLNormalizer.normalize).map {
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

    /// With --sitemaps: the pages listed by the seeds' sitemaps (robots.txt `Sitemap:` lines and
    /// `/sitemap.xml`, sitemap indexes followed, `.gz` read), offered as links from the root.
    private func discoverSitemaps() async throws {
        var pending: [String] = []
        var origins = Set<String>()
        for seed in configuration.seeds.compactMap(URLParts.init) where origins.insert(seed.origin).inserted {
            pending += await robots.rules(for: seed, send: send).rules.sitemaps + ["\(seed.origin)/sitemap.xml"]
        }
        var visited = Set<String>()
        var offers: [CrawlItem] = []
        while let next = pending.popLast(), visited.count < 1000 {
            guard let parts = URLParts(next), visited.insert(parts.normalized).inserted,
                  let response = try? await send(CacheRequest(url: parts.normalized)),
                  (200..<300).contains(response.status), var bytes = try? response.body.collect(limit: 64 << 20)
            else { continue }
            if bytes.starts(with: [0x1f, 0x8b]) {
                guard let inflated = try? GzipDecoder.decompress(bytes, limit: 256 << 20) else { continue }
                bytes = inflated
            }
            let entries = SitemapParser.entries(in: bytes)
            pending += entries.sitemaps
            for page in entries.pages {
                guard let normalized = scope.resolve(page, against: parts) else { continue }
                offers.append(CrawlItem(url: normalized, depth: 1, role: .page, hops: 0, referrer: parts.normalized))
            }
        }
        try await offer(offers)
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
                    try await process(item)
                } catch where Task.isCancelled || error is SessionEnded {
                    // Interrupted, or the login ended: the URL stays queued, and the next run (--resume) fetches it.
                } catch {
                    recordFailure(item, status: nil, message: "\(error)")
                    try? await frontier.record(item.url, .failed, status: nil, detail: "\(error)")
                }
            }
            await frontier.release(item)
        }
    }

    // MARK: One URL

    private func process(_ item: CrawlItem) async throws {
        guard let url = URLParts(item.url) else { return }
        if let maxBytes = configuration.maxBytes, report.withLock({ $0.bytes }) >= maxBytes { return try await skip(item, .budget) }
        if item.role == .page {
            if let reason = try await frontier.admitPage(host: url.authority) { return try await skip(item, reason) }
        }
        var saved = false
        do {
            saved = try await fetchAndSave(item, url: url)
        } catch {
            if item.role == .page { await frontier.pageEnded(host: url.authority, saved: false) }
            throw error
        }
        if item.role == .page { await frontier.pageEnded(host: url.authority, saved: saved) }
    }

    /// Fetches an item admitted under the page budget and saves it; true when it was saved.
    private func fetchAndSave(_ item: CrawlItem, url: URLParts) async throws -> Bool {
        switch try await robotsAnswer(for: url, normalized: item.url) {
        case .allowed: break
        case .disallowed:
            try await skip(item, .robots)
            return false
        case .unusable(let problem):
            // RFC 9309: an unreachable or failing robots.txt means "disallow all" — say so.
            recordFailure(item, status: nil, message: "not crawled: robots.txt \(problem)")
            try await frontier.record(item.url, .failed, status: nil, detail: problem)
            return false
        }
        let response: CacheResponse
        do {
            response = try await fetch(item)
        } catch let error as CacheError where error.code == .bodyTooLarge {
            try await skip(item, .tooLarge)
            return false
        }
        if response.outcome == .offlineMiss {
            try await skip(item, .offlineMiss)
            return false
        }
        report.withLock { $0.cache[response.outcome.rawValue, default: 0] += 1; $0.statuses[String(response.status), default: 0] += 1 }
        if (300..<400).contains(response.status), let location = response.headers.first(name: "location") {
            try await followRedirect(item, response: response, from: url, to: location)
            return false
        }
        guard (200..<300).contains(response.status) else {
            recordFailure(item, status: response.status, message: "HTTP \(response.status)")
            try await frontier.record(item.url, .failed, status: response.status, detail: nil)
            return false
        }
        let contentType = response.headers.first(name: "content-type")
        let rendered = item.role == .page && Self.isHTML(contentType, url: url) ? await render(item) : nil
        var saved = response
        if let rendered, let copy = await copy(of: response, in: rendered.form, snapshot: rendered.snapshot, data: rendered.data,
                                               pageURL: item.url) {
            saved = copy
        }
        let path = try await output?.write(url: item.url, response: CrawledResponse(saved, store: client.store))
        if let rendered, let path { try checks?.add(item, savedAt: path, page: rendered) }
        report.withLock { report in
            report.fetched += 1
            report.bytes += response.body.count
            if item.role == .page { report.pages += 1 } else { report.requisites += 1 }
        }
        var links = try pageLinks(in: response, url: url, contentType: contentType)
        if let rendered { links = browserLinks(rendered, of: url, adding: links) }
        // Done only once its links are queued: a kill between the two never loses them.
        try await discover(links, from: item)
        try await frontier.record(item.url, .done, status: response.status, detail: path)
        // A page loaded in the browser took a second or more: its record is committed at once,
        // not with the next batch, so a kill does not make --resume load it again.
        if rendered != nil { try journal.flush() }
        return true
    }

    enum RobotsAnswer {
        case allowed
        case disallowed
        /// robots.txt could not be had (5xx, unreachable): nothing of the host may be fetched.
        case unusable(String)
    }

    /// What the host's robots.txt (read first if need be, its Crawl-delay handed to the frontier)
    /// says of `url`, whose normalized form is `normalized`; always allowed with --ignore-robots.
    func robotsAnswer(for url: URLParts, normalized: String) async throws -> RobotsAnswer {
        guard configuration.obeyRobots else { return .allowed }
        let verdict = await robots.rules(for: url, send: send)
        try await frontier.robotsKnown(Frontier.host(of: normalized), crawlDelay: verdict.rules.crawlDelay)
        if let problem = verdict.problem { return .unusable(problem) }
        return verdict.rules.allows(String(normalized.dropFirst(url.origin.count))) ? .allowed : .disallowed
    }

    /// Fetches through the cache, retrying timeouts, connection errors, 429 and 5xx with backoff.
    func fetch(_ item: CrawlItem) async throws -> CacheResponse {
        let request = CacheRequest(url: item.url)
        var attempt = 0
        while true {
            do {
                let response = try await send(request)
                let retryable = response.status == 429 || (500...599).contains(response.status) && response.outcome != .offlineMiss
                guard retryable, attempt < configuration.retries else { return response }
                try await Task.sleep(for: Self.backoff(attempt: attempt, retryAfter: response.headers.first(name: "retry-after")))
            } catch let error as CacheError {
                if error.code == .bodyTooLarge { throw error }
                guard attempt < configuration.retries else { throw error }
                try await Task.sleep(for: Self.backoff(attempt: attempt, retryAfter: nil))
            } catch {
                guard attempt < configuration.retries, !(error is any PermanentTransportError) else { throw error }
                try await Task.sleep(for: Self.backoff(attempt: attempt, retryAfter: nil))
            }
            attempt += 1
        }
    }

    /// Sends one request the crawl's way: with its User-Agent and its credentials where they may
    /// go (answering an authentication challenge once), after its host's turn has come (`--delay`,
    /// Crawl-delay), answered by what the cache stored since the crawl started (so a resumed crawl
    /// does not fetch it again), its cookies kept, and logged (`--verbose`).
    @Sendable func send(_ original: CacheRequest) async throws -> CacheResponse {
        var request = authorized(original)
        request.reuseStoredSince = frontier.crawlStartedAt
        request.headers.replaceOrAdd(name: "User-Agent", value: configuration.userAgent)
        // Another worker of a shared crawl may have it already: then it comes from there.
        if let exchange, let shared = try await exchange.response(for: request) {
            events?(.request(url: request.url, status: shared.status, outcome: shared.outcome, bytes: shared.body.count, milliseconds: 0))
            return shared
        }
        var response = try await roundTrip(request)
        if let retry = try challenged(response, to: request) {
            request = retry
            response = try await roundTrip(request)
            _ = try challenged(response, to: request)
        }
        return response
    }

    /// One exchange through the cache, in its host's turn; what it set is kept, and it is shared
    /// with the other workers and logged.
    private func roundTrip(_ request: CacheRequest) async throws -> CacheResponse {
        try checkSession()
        let host = Frontier.host(of: request.url)
        let spaced = try await frontier.waitTurn(host)
        let sent = ContinuousClock.now
        let outcome: Result<CacheResponse, any Error>
        do { outcome = .success(try await client.fetch(request)) } catch { outcome = .failure(error) }
        if spaced { await frontier.requestEnded(host) }
        let response = try outcome.get()
        try await keepCookies(of: response, for: request)
        try await exchange?.share(response, for: request)
        events?(.request(url: request.url, status: response.status, outcome: response.outcome, bytes: response.body.count,
                         milliseconds: Int((ContinuousClock.now - sent).seconds * 1000)))
        return response
    }

    /// 0.5 s, 1 s, 2 s … or the server's Retry-After in seconds, at most 30 s.
    static func backoff(attempt: Int, retryAfter: String?) -> Duration {
        if let retryAfter, let seconds = Int(retryAfter.trimmingCharacters()) { return .seconds(min(max(seconds, 0), 30)) }
        return .milliseconds(min(500 << attempt, 30_000))
    }

    /// Saves in the folder what another worker of a shared crawl made of `url`: the response it
    /// received, saved as this crawl would have saved it (a redirect, or a page and the links and
    /// text the folder's finish needs), with nothing queued or counted. Not for `--browser`
    /// crawls, whose pages are saved as the browser made them.
    public func adopt(_ url: String, response: CacheResponse) async throws {
        guard let parts = URLParts(url) else { return }
        if (300..<400).contains(response.status), let location = response.headers.first(name: "location") {
            guard let normalized = scope.resolve(location, against: parts) else { return }
            try output?.redirect(from: url, to: normalized, response: CrawledResponse(response, store: client.store))
            return
        }
        guard (200..<300).contains(response.status) else { return }
        _ = try await output?.write(url: url, response: CrawledResponse(response, store: client.store))
        _ = try pageLinks(in: response, url: parts, contentType: response.headers.first(name: "content-type"))
    }

    private func followRedirect(_ item: CrawlItem, response: CacheResponse, from url: URLParts, to location: String) async throws {
        report.withLock { $0.redirects += 1 }
        guard let normalized = scope.resolve(location, against: url) else {
            recordFailure(item, status: nil, message: "redirect to an unusable location: \(location)")
            return try await frontier.record(item.url, .failed, status: nil, detail: location)
        }
        try output?.redirect(from: item.url, to: normalized, response: CrawledResponse(response, store: client.store))
        if item.hops + 1 > 10 { return try await skip(item, .redirectLimit) }
        if normalized == item.url { return try await skip(item, .redirectLoop) }
        let next = CrawlItem(url: normalized, depth: item.depth, role: item.role, hops: item.hops + 1, referrer: item.url)
        try await offer([next])
        try await frontier.record(item.url, .done, status: response.status, detail: "→ \(normalized)")
    }

    /// The links of a saved page: from the journal when this page had the same body before,
    /// else extracted (libxml2 or the CSS tokenizer), resolved, and recorded there — for an
    /// HTML page with its located references, so that the folder's rewriting parses it no more.
    private func pageLinks(in response: CacheResponse, url: URLParts, contentType: String?) throws -> PageLinks {
        let type = (contentType ?? "").lowercased()
        let isHTML = Self.isHTML(contentType, url: url)
        let isCSS = type.containsBytes("text/css") || (contentType == nil && url.path.hasSuffix(".css"))
        guard isHTML || isCSS else { return PageLinks(links: []) }
        let key = response.entry.map { pageKey(digest: $0.digest, contentType: contentType) }
        if let key, let known = try journal.links(of: url.normalized, key: key) { return known }
        let body = try response.body.collect(limit: 64 << 20)
        var found: [ExtractedLink]
        var references: [HTMLReference] = []
        var text: HTMLText?
        var base = url
        if isCSS {
            found = CSSLinkExtractor.links(in: String(decoding: body, as: UTF8.self))
        } else {
            let locator = HTMLReferenceLocator(charset: CharsetSniffer.charset(contentType: contentType, prefix: Array(body.prefix(1024))))
            locator.feed(body)
            references = locator.finish(readingText: configuration.searchIndex)
            text = locator.text
            let extracted = locator.links
            found = extracted.links
            if let href = extracted.baseHref, let resolved = url.resolve(href) { base = resolved }
        }
        let links = PageLinks(links: resolved(found, against: base))
        if let key { try journal.record(links, references: references, text: text, of: url.normalized, key: key) }
        return links
    }

    static func isHTML(_ contentType: String?, url: URLParts) -> Bool {
        let type = (contentType ?? "").lowercased()
        return type.containsBytes("text/html") || type.containsBytes("xhtml") || (contentType == nil && url.path.hasSuffix(".html"))
    }

    /// The distinct links of a page, resolved and normalized, in document order. Each target is
    /// resolved once however many fragments point into it (keyed by bytes: Strings compare by
    /// canonical equivalence, but two spellings of `é` resolve to different URLs).
    func resolved(_ found: [ExtractedLink], against base: URLParts) -> [PageLinks.Link] {
        var targets: [[UInt8]: String?] = [:]
        var seen = Set<PageLinks.Link>()
        var links: [PageLinks.Link] = []
        for link in found {
            let url: String?
            if let target = URLParts.splitAtFragment(link.reference)?.target {
                url = targets.memoized(Array(target.utf8)) { scope.resolve(String(target), against: base) }
            } else {
                url = scope.resolve(link.reference, against: base)
            }
            guard let url else { continue }
            let resolvedLink = PageLinks.Link(url: url, kind: link.kind, endsSession: link.endsSession)
            if seen.insert(resolvedLink).inserted { links.append(resolvedLink) }
        }
        return links
    }

    /// What a page's links and references depend on besides its URL: its body, its type (the
    /// charset), the query parameters the crawl ignores, and the version of `StoredReferences`.
    private func pageKey(digest: String, contentType: String?) -> String {
        Self.pageKey(digest: digest, contentType: contentType, ignoredParameters: configuration.ignoredParameters)
    }

    static func pageKey(digest: String, contentType: String?, ignoredParameters: [URLPattern]) -> String {
        [digest, (contentType ?? "").lowercased(), ignoredParameters.map(\.source).joined(separator: " "), StoredReferences.version]
            .joined(separator: "\n")
    }

    /// Turns a page's links into frontier items, checking scope and recording skips. While the
    /// crawl holds a session with the page's site, a link that would end it is not followed.
    private func discover(_ page: PageLinks, from item: CrawlItem) async throws {
        var offers: [CrawlItem] = []
        let holdsSession = URLParts(item.url).map(credentials.holdsSession) ?? false
        let loggingOut = holdsSession ? Set(page.links.filter { link in
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
        try await offer(offers, refusing: loggingOut.sorted().map { url in
            (CrawlItem(url: url, depth: item.depth + 1, role: .page, hops: 0, referrer: item.url), .logout)
        })
    }

    /// Queues the items not seen before that are in scope (their URLs are normalized), and
    /// counts the others' skips once, with those of `refusals` (refused already).
    private func offer(_ offers: [CrawlItem], refusing refusals: [(CrawlItem, SkipReason)] = []) async throws {
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
               try await frontier.isSeen(page) || !sessionTraps.withLock({ $0.claim(page) }) {
                refused.append((item, .sessionID))
                continue
            }
            accepted.append(item)
        }
        let recorded = try await frontier.add(accepted, skipped: refused)
        for ((item, reason), isNew) in zip(refused, recorded) where isNew { recordSkip(item, reason) }
    }

    // MARK: Budgets and bookkeeping

    private func skip(_ item: CrawlItem, _ reason: SkipReason) async throws {
        recordSkip(item, reason)
        try await frontier.record(item.url, .skipped, status: nil, detail: reason.rawValue)
    }

    func recordSkip(_ item: CrawlItem, _ reason: SkipReason) {
        report.withLock { report in
            report.skipped[reason.rawValue, default: 0] += 1
            if report.skippedExamples.count(where: { $0.reason == reason.rawValue }) < 20 {
                report.skippedExamples.append(.init(url: item.url, reason: reason.rawValue, referrer: item.referrer))
            }
        }
    }

    private func recordFailure(_ item: CrawlItem, status: Int?, message: String) {
        logger.debug("failed: \(item.url): \(message)")
        report.withLock { $0.failures.append(.init(url: item.url, status: status, message: message, referrer: item.referrer)) }
    }

    private func snapshot(since started: ContinuousClock.Instant) async -> CrawlProgress {
        let queued = await frontier.pendingCount()
        return report.withLock { report in
            CrawlProgress(fetched: report.fetched, queued: queued, bytes: report.bytes, failures: report.failures.count,
                          seconds: (ContinuousClock.now - started).seconds)
        }
    }
}

/// The running totals behind the progress line.
public struct CrawlProgress: Sendable {
    public let fetched: Int
    public let queued: Int
    public let bytes: Int
    public let failures: Int
    public let seconds: Double
}
