import MirrorCache
import MirrorCore
import MirrorSite

/// Takes each URL the frontier hands out through its steps: the byte and page budgets,
/// robots.txt, the fetch, a redirect followed, the page loaded in the browser (`--browser`),
/// saved in the folder, its links offered to the frontier; and records what became of it.
struct ItemProcessor: Sendable {
    /// `--max-bytes`.
    let maxBytes: Int?
    let frontier: any CrawlFrontier
    let recorder: ReportRecorder
    let robots: RobotsGate
    let fetcher: RetryingFetcher
    let scope: ScopeRules
    /// The folder; nil for a crawl that only fetches.
    let output: SiteWriter?
    let store: CacheStore
    let links: LinkReader
    let offers: FrontierOffers
    /// `--browser`: loads each saved page, and copies it in the form it keeps.
    let browser: (loader: PageLoader, copier: PageCopier)?
    /// The pages the browser loaded, waiting for the offline check.
    let checks: PageChecks?
    /// The journal, for a page loaded in the browser committed at once.
    let journal: CrawlJournal

    func process(_ item: CrawlItem) async throws {
        guard let url = URLParts(item.url) else { return }
        if let maxBytes = maxBytes, recorder.report.withLock({ $0.bytes }) >= maxBytes { return try await skip(item, .budget) }
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
        switch try await robots.answer(for: url, normalized: item.url) {
        case .allowed: break
        case .disallowed:
            try await skip(item, .robots)
            return false
        case .unusable(let problem):
            // RFC 9309: an unreachable or failing robots.txt means "disallow all" — say so.
            recorder.failure(item, status: nil, message: "not crawled: robots.txt \(problem)")
            try await frontier.record(item.url, .failed, status: nil, detail: problem)
            return false
        }
        let response: CacheResponse
        do {
            response = try await fetcher.fetch(item)
        } catch let error as CacheError where error.code == .bodyTooLarge {
            try await skip(item, .tooLarge)
            return false
        }
        // The host may take its next request while this page is parsed and saved; a page loaded
        // in the browser keeps its host's slot while the browser's requests for it run.
        if browser == nil { await frontier.fetched(item) }
        if response.outcome == .offlineMiss {
            try await skip(item, .offlineMiss)
            return false
        }
        recorder.report.withLock {
            $0.cache[response.outcome.rawValue, default: 0] += 1
            $0.statuses[String(response.status), default: 0] += 1
        }
        if (300..<400).contains(response.status), let location = response.headers.first(name: "location") {
            try await followRedirect(item, response: response, from: url, to: location)
            return false
        }
        guard (200..<300).contains(response.status) else {
            recorder.failure(item, status: response.status, message: "HTTP \(response.status)")
            try await frontier.record(item.url, .failed, status: response.status, detail: nil)
            return false
        }
        let contentType = response.headers.first(name: "content-type")
        let rendered = item.role == .page && LinkReader.isHTML(contentType, url: url) ? await browser?.loader.render(item) : nil
        var saved = response
        if let rendered,
            let copy = await browser?.copier.copy(
                of: response, in: rendered.form, snapshot: rendered.snapshot,
                data: rendered.data, pageURL: item.url)
        {
            saved = copy
        }
        let path = try await output?.write(url: item.url, response: CrawledResponse(saved, store: store))
        if let rendered, let path { try checks?.add(item, savedAt: path, page: rendered) }
        recorder.report.withLock { report in
            report.fetched += 1
            report.bytes += response.body.count
            if item.role == .page { report.pages += 1 } else { report.requisites += 1 }
        }
        var links = try self.links.pageLinks(in: response, url: url, contentType: contentType)
        if let rendered { links = self.links.browserLinks(rendered, of: url, adding: links) }
        // Done only once its links are queued: a kill between the two never loses them.
        try await offers.discover(links, from: item)
        try await frontier.record(item.url, .done, status: response.status, detail: path)
        // A page loaded in the browser took a second or more: its record is committed at once,
        // not with the next batch, so a kill does not make --resume load it again.
        if rendered != nil { try journal.flush() }
        return true
    }

    private func followRedirect(_ item: CrawlItem, response: CacheResponse, from url: URLParts, to location: String) async throws {
        recorder.report.withLock { $0.redirects += 1 }
        guard let normalized = scope.resolve(location, against: url) else {
            recorder.failure(item, status: nil, message: "redirect to an unusable location: \(location)")
            return try await frontier.record(item.url, .failed, status: nil, detail: location)
        }
        try output?.redirect(from: item.url, to: normalized, response: CrawledResponse(response, store: store))
        if item.hops + 1 > 10 { return try await skip(item, .redirectLimit) }
        if normalized == item.url { return try await skip(item, .redirectLoop) }
        let next = CrawlItem(url: normalized, depth: item.depth, role: item.role, hops: item.hops + 1, referrer: item.url)
        try await offers.offer([next])
        try await frontier.record(item.url, .done, status: response.status, detail: "→ \(normalized)")
    }

    private func skip(_ item: CrawlItem, _ reason: SkipReason) async throws {
        recorder.skip(item, reason)
        try await frontier.record(item.url, .skipped, status: nil, detail: reason.rawValue)
    }
}
