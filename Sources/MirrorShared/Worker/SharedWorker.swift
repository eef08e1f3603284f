import Foundation
public import MirrorCache
public import MirrorCrawl
public import MirrorCredentials
public import MirrorSite

/// One worker of a shared crawl, in this process: it fetches what it claims until the crawl's
/// frontier is empty. With an output folder it makes the whole folder from every worker's
/// responses: saved as they come, what it fetched and what the others did (`SharedFolderFeed`),
/// then finished; with a browser, once the crawl is done, by an offline crawl of its cache with
/// each page as its worker's browser made it (`RenderedFolder`).
public struct SharedWorker: Sendable {
    /// How a worker's run ended.
    public enum Outcome: Sendable {
        /// Interrupted: this worker's claims went back to the shared crawl; its own report.
        case interrupted(CrawlReport)
        /// The crawl is done: every worker's report added up.
        case finished(CrawlReport)
    }

    /// The worker's folder could not be opened or written.
    public enum FolderError: Error {
        case cannotOpen(folder: String, any Error)
        case cannotWrite(folder: String, SiteError)
    }

    /// What the worker's crawls are made of besides the crawl they join.
    public struct Parts: Sendable {
        public var configuration: CrawlConfiguration
        public var credentials: CrawlCredentials
        public var store: CacheStore
        /// The transport the worker fetches through; its caller shuts it down after `run`.
        public var transport: any HTTPTransport
        public var clientConfiguration: CachingClient.Configuration
        /// The folder to make; nil for a worker that only fetches.
        public var output: String?
        /// Starts the browser that loads each page (`--browser`); nil for a crawl of the bytes alone.
        public var startBrowser: (@Sendable () async throws -> any PageRenderer)?
        public var searchIndexer: (any SearchIndexer)?
        public var progress: (@Sendable (CrawlProgress) -> Void)?
        public var events: (@Sendable (CrawlEvent) -> Void)?

        public init(
            configuration: CrawlConfiguration, credentials: CrawlCredentials, store: CacheStore, transport: any HTTPTransport,
            clientConfiguration: CachingClient.Configuration, output: String?,
            startBrowser: (@Sendable () async throws -> any PageRenderer)? = nil, searchIndexer: (any SearchIndexer)? = nil,
            progress: (@Sendable (CrawlProgress) -> Void)? = nil, events: (@Sendable (CrawlEvent) -> Void)? = nil
        ) {
            self.configuration = configuration
            self.credentials = credentials
            self.store = store
            self.transport = transport
            self.clientConfiguration = clientConfiguration
            self.output = output
            self.startBrowser = startBrowser
            self.searchIndexer = searchIndexer
            self.progress = progress
            self.events = events
        }
    }

    public let crawl: SharedCrawl
    private let parts: Parts

    public init(crawl: SharedCrawl, parts: Parts) {
        self.crawl = crawl
        self.parts = parts
    }

    /// Does this worker's part of the crawl, then leaves it.
    /// - Parameter listen: called as the crawl starts with what interrupts it (the user's Ctrl-C);
    ///   what it returns is called once the crawl stopped, before the folder is made.
    public func run(listeningForInterrupts listen: (_ interrupt: @escaping @Sendable () -> Void) -> () -> Void) async throws -> Outcome {
        let report = try await fetch(listen)
        if report.interrupted {
            await crawl.leave(report: try Self.encoded(report))
            return .interrupted(report)
        }
        if let output = parts.output, parts.startBrowser != nil {
            try await RenderedFolder(crawl: crawl, parts: parts).make(in: output)
        }
        await crawl.leave(report: try Self.encoded(report))
        let reports = try await crawl.reports().compactMap { try? JSONDecoder().decode(CrawlReport.self, from: Data($0.utf8)) }
        return .finished(CrawlReport.merged(reports.isEmpty ? [report] : reports))
    }

    /// This worker's part of the crawl: it claims and fetches until the shared frontier is empty
    /// (unless it joined a finished round). With a folder to make and no browser, it saves there
    /// what it fetches and what the others did as they do it, then finishes the folder.
    private func fetch(_ listen: (_ interrupt: @escaping @Sendable () -> Void) -> () -> Void) async throws -> CrawlReport {
        let output = parts.output
        // The journal keeps the pages' links by body for the folder (in DIR, or in a temporary
        // folder for a worker without one).
        let scratch = output ?? FileManager.default.temporaryDirectory.appendingPathComponent("mirror-worker-\(UUID().uuidString)").path
        defer { if output == nil { try? FileManager.default.removeItem(atPath: scratch) } }
        let journal: CrawlJournal
        let writer: SiteWriter?
        do {
            journal = try CrawlJournal(folder: scratch, fresh: true)
            writer = output != nil && parts.startBrowser == nil ? try SiteWriter(directory: scratch, ledger: journal.ledger) : nil
        } catch {
            throw FolderError.cannotOpen(folder: scratch, error)
        }
        let client = CachingClient(store: parts.store, transport: parts.transport, configuration: parts.clientConfiguration)
        var renderer: (any PageRenderer)?
        if let startBrowser = parts.startBrowser, !crawl.alreadyFinished {
            renderer = RecordingRenderer(browser: try await startBrowser(), crawl: crawl)
        }
        let frontier = SharedFrontier(crawl: crawl, configuration: parts.configuration)
        let responses = SharedResponses(crawl: crawl, store: parts.store, frontier: frontier)
        let crawler = Crawler(
            configuration: parts.configuration, client: client, output: writer, journal: journal, frontier: frontier,
            exchange: responses, renderer: renderer, searchIndexer: parts.searchIndexer, credentials: parts.credentials,
            progress: parts.progress, events: parts.events)
        let feed = writer.map { _ in SharedFolderFeed(responses: responses, crawler: crawler) }
        let run = Task { [crawl] in
            guard !crawl.alreadyFinished else { return CrawlReport() }
            // The feed is a child of this task: the folder is not caught up and finished while
            // it still saves a URL, which would land in the folder unrewritten.
            return try await withThrowingTaskGroup(of: Void.self) { group in
                if let feed { group.addTask { await feed.follow(every: .milliseconds(200)) } }
                defer { group.cancelAll() }
                return try await crawler.crawl(resume: false)
            }
        }
        let stopListening = listen { run.cancel() }
        let result = await run.result
        stopListening()
        var unfinished: (any Error)?
        if let report = try? result.get(), !report.interrupted {
            do {
                // Before the folder: a worker that finishes its own first adds up every report.
                try await crawl.heartbeat(report: try Self.encoded(report))
                if let feed {
                    parts.events?(.phase("saving what the other workers did"))
                    try await feed.catchUp()
                    try await crawler.finishFolder()
                }
            } catch {
                unfinished = error
            }
        }
        await frontier.close()
        await renderer?.close()
        if let error = unfinished as? SiteError { throw FolderError.cannotWrite(folder: scratch, error) }
        if let unfinished { throw unfinished }
        return try result.get()
    }

    private static func encoded(_ report: CrawlReport) throws -> String {
        String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
    }
}
