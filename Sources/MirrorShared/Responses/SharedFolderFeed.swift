public import MirrorCrawl

/// Saves in this worker's folder what the other workers of a shared crawl did, while they do it:
/// each URL another worker finished, with the response it shared, brought into this worker's
/// cache and saved by its crawler (`Crawler.adopt`, by `ResponseAdopter`). When the crawl ends, `catchUp()` saves what
/// is left, and the folder only needs finishing — the work of making it is spread over the crawl
/// instead of following it.
public actor SharedFolderFeed {
    private let responses: SharedResponses
    private let crawler: Crawler
    /// The URLs saved so far.
    private var adopted = Set<String>()
    /// The `done` mark of the last URL read.
    private var lastDone: Int64 = 0

    public init(responses: SharedResponses, crawler: Crawler) {
        self.responses = responses
        self.crawler = crawler
    }

    /// Saves what the others did, again every `interval`, until cancelled: it returns once the
    /// save under way has ended (done, or given up), and `catchUp()`, called after it returns,
    /// saves the rest. A failure (the database unreachable) waits for the next round: the crawl
    /// itself reports it, and `catchUp()` saves what was missed.
    public func follow(every interval: Duration) async {
        while !Task.isCancelled {
            while (try? await saveNext()) == true, !Task.isCancelled {}
            try? await Task.sleep(for: interval)
        }
    }

    /// Saves every URL another worker did that is not saved yet, then brings into the cache the
    /// other responses they shared (robots.txt, failures). A URL that cannot be saved fails it:
    /// the folder would lack a page another worker fetched. Called once `follow` has returned:
    /// the two never save at once (a URL counts as saved only after its save's suspensions).
    public func catchUp() async throws {
        while try await saveNext() {}
        let left = try await responses.othersDone().filter { !adopted.contains($0) }
        for row in try await responses.rows(of: left) { try await save(row) }
        _ = try await responses.bringAllIn(except: adopted, includingOwn: false)
    }

    /// Saves the next URLs done after the last read; false when there were none.
    private func saveNext() async throws -> Bool {
        let done = try await responses.othersDone(after: lastDone)
        guard let last = done.last else { return false }
        lastDone = last
        for row in done.rows {
            try Task.checkCancellation()
            try await save(row)
        }
        return true
    }

    /// Saves `row`'s URL unless it is saved; a URL is counted saved only once it is, so a save
    /// cut short (the feed cancelled, the database lost) is done again by `catchUp()`.
    private func save(_ row: SharedResponses.Row) async throws {
        guard !adopted.contains(row.url) else { return }
        try await crawler.adopt(row.url, response: try await responses.response(of: row))
        adopted.insert(row.url)
    }
}
