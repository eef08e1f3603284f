import ArgumentParser
import Crypto
import Foundation
import MirrorBrowser
import MirrorCache
import MirrorCore
import MirrorCrawl
import MirrorCredentials
import MirrorHTTP
import MirrorShared
import MirrorSite

/// `mirror crawl --shared postgres://…`: this process is one worker of a crawl whose frontier,
/// politeness, budgets and responses live in PostgreSQL. It fetches what it claims until the
/// crawl's frontier is empty. With `-o DIR` it makes the whole folder from every worker's
/// responses: saved as they come, what it fetched and what the others did (`SharedFolderFeed`),
/// then finished; with `--browser`, once the crawl is done, by an offline crawl of its cache
/// with each page as its worker's browser made it.
extension CrawlCommand {
    func runShared(_ address: String) async throws {
        let configuration = try crawlConfiguration()
        let credentials = try credentialOptions.credentials(for: configuration)
        let browserExecutable = try locateBrowser()
        if resume { throw CommandFailure("--resume does not apply to --shared: a shared crawl always continues", status: .usage) }
        let database: SharedDatabase
        do {
            database = try await SharedDatabase.connect(address, patience: sharedPatience)
        } catch {
            throw Self.sharedFailure(error)
        }
        do {
            try await runWorker(database, configuration: configuration, credentials: credentials, browserExecutable: browserExecutable)
        } catch {
            await database.close()
            try? credentialOptions.save(credentials)
            throw Self.sharedFailure(error)
        }
        await database.close()
    }

    /// How long the worker waits for a database that went away: a few leases.
    private var sharedPatience: Duration { .seconds(max(10, 3 * sharedOptions.lease.seconds)) }

    private func runWorker(_ database: SharedDatabase, configuration: CrawlConfiguration, credentials: CrawlCredentials,
                           browserExecutable: String?) async throws {
        let name = sharedOptions.crawlName ?? defaultCrawlName(configuration)
        if sharedOptions.status {
            guard let status = try await SharedStatus.read(database, name: name) else {
                throw CommandFailure("no shared crawl named \(name) in \(database.address)", status: .usage)
            }
            print(status.text)
            return
        }
        let crawl = try await SharedCrawl.join(database, name: name, options: sharedValues(), configuration: configuration, lease: sharedOptions.lease.duration)
        if verbose { Output.log("-- worker \(crawl.worker) \(crawl.began ? "began" : "joined") round \(crawl.round) of \(name)") }
        let store = try CacheCommand.open(cacheOptions.directory(), configuration: .crawl)
        var report = try await fetch(crawl, store: store, configuration: configuration, credentials: credentials,
                                     browserExecutable: browserExecutable)
        if report.interrupted {
            await crawl.leave(report: try Self.encoded(report))
            throw CommandFailure("interrupted; this worker's claims went back to the shared crawl", status: .interrupted)
        }
        if let output, browser {
            try await assemble(crawl, into: output, store: store, configuration: configuration, credentials: credentials)
        }
        try credentialOptions.save(credentials)
        await crawl.leave(report: try Self.encoded(report))
        let reports = try await crawl.reports().compactMap { try? JSONDecoder().decode(CrawlReport.self, from: Data($0.utf8)) }
        report = CrawlReport.merged(reports.isEmpty ? [report] : reports)
        try conclude(report, folder: output)
    }

    /// This worker's part of the crawl: it claims and fetches until the shared frontier is empty
    /// (unless it joined a finished round). With a folder to make and no browser, it saves there
    /// what it fetches and what the others did as they do it, then finishes the folder.
    private func fetch(_ crawl: SharedCrawl, store: CacheStore, configuration: CrawlConfiguration, credentials: CrawlCredentials,
                       browserExecutable: String?) async throws -> CrawlReport {
        // The journal keeps the pages' links by body for the folder (in DIR, or in a temporary
        // folder for a worker without one).
        let scratch = output ?? FileManager.default.temporaryDirectory.appendingPathComponent("mirror-worker-\(UUID().uuidString)").path
        defer { if output == nil { try? FileManager.default.removeItem(atPath: scratch) } }
        let journal: CrawlJournal
        let writer: SiteWriter?
        do {
            journal = try CrawlJournal(folder: scratch, fresh: true)
            writer = output != nil && browserExecutable == nil ? try SiteWriter(directory: scratch, ledger: journal) : nil
        } catch {
            throw CommandFailure("cannot open the output folder \(scratch): \(ErrorText.plain(error))", status: .io)
        }
        let transport = AsyncHTTPClientTransport(connectionsPerHost: perHost, security: try tlsOptions.security())
        let client = CachingClient(store: store, transport: transport, configuration: clientConfiguration())
        var renderer: (any PageRenderer)?
        if let browserExecutable, !crawl.alreadyFinished {
            renderer = RecordingRenderer(browser: try await startBrowser(browserExecutable, transport: transport), crawl: crawl)
        }
        let frontier = SharedFrontier(crawl: crawl, configuration: configuration)
        let responses = SharedResponses(crawl: crawl, store: store, frontier: frontier)
        let crawler = Crawler(configuration: configuration, client: client, output: writer, journal: journal, frontier: frontier,
                              exchange: responses, renderer: renderer, searchIndexer: CrawlSearchIndex(), credentials: credentials,
                              progress: quiet || verbose ? nil : ProgressLine().draw, events: verbose ? Self.log : nil)
        let feed = writer.map { _ in SharedFolderFeed(responses: responses, crawler: crawler) }
        let run = Task {
            guard !crawl.alreadyFinished else { return CrawlReport() }
            let following = feed.map { feed in Task { await feed.follow(every: .milliseconds(200)) } }
            defer { following?.cancel() }
            return try await crawler.crawl(resume: false)
        }
        let interruption = InterruptHandler { run.cancel() }
        let result = await run.result
        interruption.cancel()
        var unfinished: (any Error)?
        if let report = try? result.get(), !report.interrupted {
            do {
                // Before the folder: a worker that finishes its own first adds up every report.
                try await crawl.heartbeat(report: try Self.encoded(report))
                if let feed {
                    if verbose { Output.log(CrawlEvent.phase("saving what the other workers did").line) }
                    try await feed.catchUp()
                    try await crawler.finishFolder()
                }
            } catch {
                unfinished = error
            }
        }
        await frontier.close()
        await renderer?.close()
        try? await transport.shutdown()
        if let error = unfinished as? SiteError { throw CommandFailure("cannot write the mirror in \(scratch): \(error)", status: .io) }
        if let unfinished { throw unfinished }
        return try result.get()
    }

    /// Makes the whole folder of a `--browser` crawl: every response of the crawl brought into
    /// this worker's cache, then an offline crawl of it into `folder`, each page rendered as
    /// recorded, as a crawl of one process would have made it.
    private func assemble(_ crawl: SharedCrawl, into folder: String, store: CacheStore, configuration: CrawlConfiguration,
                          credentials: CrawlCredentials) async throws {
        if verbose { Output.log(CrawlEvent.phase("bringing the shared crawl's responses into the cache").line) }
        let brought = try await SharedResponses(crawl: crawl, store: store).bringAllIn()
        if verbose { Output.log(CrawlEvent.phase("making the folder from the cache (\(brought) responses brought in)").line) }
        var local = configuration
        local.delay = nil
        local.maxDuration = nil
        local.perHost = max(configuration.perHost, configuration.concurrency)
        let journal: CrawlJournal
        let writer: SiteWriter
        do {
            journal = try CrawlJournal(folder: folder, fresh: true)
            writer = try SiteWriter(directory: folder, ledger: journal)
        } catch {
            throw CommandFailure("cannot open the output folder \(folder): \(ErrorText.plain(error))", status: .io)
        }
        var offline = clientConfiguration()
        offline.mode = .offline
        let transport = AsyncHTTPClientTransport(connectionsPerHost: 1, security: try tlsOptions.security())
        let client = CachingClient(store: store, transport: transport, configuration: offline)
        let crawler = Crawler(configuration: local, client: client, output: writer, journal: journal,
                              renderer: RecordedRenderer(crawl: crawl), searchIndexer: CrawlSearchIndex(), credentials: credentials,
                              events: verbose ? Self.log : nil)
        let result = await Task { try await crawler.run(resume: false) }.result
        try? await transport.shutdown()
        if case .failure(let error as SiteError) = result { throw CommandFailure("cannot write the mirror in \(folder): \(error)", status: .io) }
        _ = try result.get()
    }

    /// The options every worker of a crawl must share, by name, as given.
    private func sharedValues() -> KeyValuePairs<String, String> {
        [
            "URLs": urls.joined(separator: " "), "--depth": depth.map(String.init) ?? "", "--max-pages": maxPages.map(String.init) ?? "",
            "--allow-host": allowHost.joined(separator: " "), "--include": include.joined(separator: " "),
            "--exclude": exclude.joined(separator: " "), "--no-requisites": String(noRequisites), "--per-host": String(perHost),
            "--delay": delay.map { String($0.seconds) } ?? "", "--ignore-robots": String(ignoreRobots), "--sitemaps": String(sitemaps),
            // The headers' digest, not their values: the database is no place for a token.
            "--user-agent": userAgent ?? "", "--header": header.isEmpty ? "" : "sha256:" + Hex.string(SHA256.hash(data: Array(header.joined(separator: "\n").utf8))),
            "--max-file-size": maxFileSize.map { String($0.bytes) } ?? "", "--browser": String(browser),
        ]
    }

    /// `crawl-` and a digest of the seeds and the scope options: the same command line on every
    /// machine names the same crawl.
    private func defaultCrawlName(_ configuration: CrawlConfiguration) -> String {
        let scope = [urls.joined(separator: " "), depth.map(String.init) ?? "", allowHost.joined(separator: " "),
                     include.joined(separator: " "), exclude.joined(separator: " "), String(noRequisites)].joined(separator: "\n")
        return "crawl-" + Hex.string(SHA256.hash(data: Array(scope.utf8))).prefix(12)
    }

    private static func encoded(_ report: CrawlReport) throws -> String {
        String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
    }

    /// The command's failure for an error of the shared crawl.
    static func sharedFailure(_ error: any Error) -> any Error {
        switch error {
        case let error as SharedCrawlError:
            switch error {
            case .badAddress, .optionsDiffer: return CommandFailure("--shared: \(error)", status: .usage)
            case .unreachable, .newerSchema: return CommandFailure(error.description, status: .sharedDatabase)
            case .damagedBody, .notRendered: return CommandFailure(error.description, status: .failure)
            }
        case let error as CacheError: return CommandFailure("the cache failed: \(error)", status: ExitStatus(error))
        case is CommandFailure, is ExitCode: return error
        default: return CommandFailure("the shared crawl failed: \(error)", status: .failure)
        }
    }
}
