import ArgumentParser
import CHeap
import Foundation
import MirrorBrowser
import MirrorCache
import MirrorCore
import MirrorCrawl
import MirrorCredentials
import MirrorHTTP
import MirrorProxy
import MirrorSearch
import MirrorSite
import NIOHTTP1

/// `mirror crawl`: snapshot sites breadth-first into a browsable folder (and optionally a bundle).
struct CrawlCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crawl",
        abstract: "Snapshot one or more sites into an offline folder.",
        discussion: """
            Examples:
              mirror crawl https://docs.example.org/ -o docs
              mirror crawl https://example.org/ --depth 2 --allow-host '*.example.org'
              mirror crawl https://example.org/ -o site --report crawl.json --verbose
              mirror crawl https://docs.example.org/ -o docs --bundle docs.tar.gz
              mirror crawl https://docs.example.org/ -o docs --resume
              mirror crawl https://docs.example.org/ -o docs --max-age 1d --max-time 30m
              mirror crawl https://example.org/ --offline --cache ./cache -o copy
              mirror crawl https://app.example.org/ -o app --browser --browser-tabs 4
              mirror crawl https://intranet.example.org/ -o docs --cookies cookies.txt
              mirror crawl https://wiki.example.org/ --user alice --password-file pw
              mirror crawl https://example.org/ --header "Authorization: Bearer $T"
            """
    )

    @Argument(help: "The seed URLs.") var urls: [String]
    @Option(
        name: [.short, .long], help: ArgumentHelp("The output folder (default: mirror-out; none for a --shared worker).", valueName: "DIR"))
    var output: String?
    @OptionGroup var cacheOptions: CacheOptions
    @OptionGroup var tlsOptions: TLSOptions
    @Option(help: "Maximum link depth from the seeds (seeds are 0).") var depth: Int?
    @Option(help: "Stop after this many pages.") var maxPages: Int?
    @Option(help: ArgumentHelp("Also crawl this host (host, host:port or *.domain).", valueName: "PATTERN"))
    var allowHost: [String] = []
    @Option(help: ArgumentHelp("Only crawl URLs matching this regular expression.", valueName: "REGEX"))
    var include: [String] = []
    @Option(help: ArgumentHelp("Never crawl URLs matching this regular expression.", valueName: "REGEX"))
    var exclude: [String] = []
    @Flag(help: "Do not fetch page requisites (images, CSS, scripts) from other hosts.") var noRequisites = false
    @Option(help: "Requests in flight at once.") var concurrency: Int = 8
    @Option(help: "Requests in flight at once per host.") var perHost: Int = 4
    @Option(help: ArgumentHelp("Wait between requests to one host (seconds, or 500ms, 2s…).", valueName: "DURATION"))
    var delay: TimeSpan?
    @Flag(help: "Do not obey robots.txt.") var ignoreRobots = false
    @Flag(help: "Also crawl the URLs listed in the sites' sitemaps.") var sitemaps = false
    @Option(help: "The User-Agent header.") var userAgent: String?
    @Option(help: ArgumentHelp("An extra request header, sent to the seeds' origins and --allow-host hosts only.", valueName: "K: V"))
    var header: [String] = []
    @OptionGroup var credentialOptions: CredentialOptions
    @Option(help: ArgumentHelp("A request's time limit (seconds, or 30s, 2m…).", valueName: "DURATION"))
    var timeout = TimeSpan(seconds: 30)
    @Option(help: "Retries for a failed request.") var retries: Int = 2
    @Option(help: ArgumentHelp("Skip files larger than this (bytes, or 500K, 10M, 2G).", valueName: "SIZE")) var maxFileSize: ByteSize?
    @Option(help: ArgumentHelp("Stop fetching once this much was received (bytes, or 500K, 10M, 2G).", valueName: "SIZE"))
    var maxBytes: ByteSize?
    @Option(
        help: ArgumentHelp(
            "Start no request after this long (seconds, or 30s, 5m, 2h); the folder is then finished.",
            valueName: "DURATION"))
    var maxTime: TimeSpan?
    @Option(
        help: ArgumentHelp(
            "Use a cached response younger than this without asking the origin (seconds, or 10m, 1d).",
            valueName: "DURATION"))
    var maxAge: TimeSpan?
    @Flag(help: "Never touch the network: use the cache only.") var offline = false
    @Flag(help: "Revalidate every cached response with the origin.") var refresh = false
    @Flag(help: "Continue an interrupted crawl without redoing finished work.") var resume = false
    @Option(help: ArgumentHelp("Also pack the result into this bundle.", valueName: "FILE.tar.gz")) var bundle: String?
    @Option(help: ArgumentHelp("Write a JSON report here.", valueName: "FILE.json")) var report: String?
    @Flag(help: "Load every page in headless Chromium, so what its scripts build and load is saved too.") var browser = false
    @Option(help: ArgumentHelp("The browser for --browser (default: $MIRROR_BROWSER, else chromium on PATH).", valueName: "FILE"))
    var browserPath: String?
    @Option(help: ArgumentHelp("Pages loaded in the browser at once (--browser).", valueName: "N")) var browserTabs: Int = 2
    @Option(help: ArgumentHelp("The most a page may take to load and settle in the browser (--browser).", valueName: "DURATION"))
    var pageTimeout = TimeSpan(seconds: 30)
    @Flag(
        help: """
            Do not check each page's copy against the live page (--browser): by default the copy is opened from the \
            folder with no network and compared with the page as it opened, pixel by pixel, and a copy that differs \
            is tried once in its other form.
            """)
    var noPageCheck = false
    @Flag(help: "Keep the check's live and offline screenshots of each page in the folder's .mirror/checks/ (--browser).")
    var keepCheckScreenshots = false
    @Flag(help: "Make no search index (.mirror/search.sqlite) for mirror search; it is made on first use then.")
    var noIndex = false
    @OptionGroup var sharedOptions: SharedOptions
    @Flag(name: [.short, .long], help: "Print nothing but errors.") var quiet = false
    @Flag(name: [.short, .long], help: "Print each request (URL, status, cache outcome, bytes, ms) and phase to stderr.")
    var verbose = false

    func validate() throws {
        let clashes = [("--offline", offline), ("--refresh", refresh), ("--max-age", maxAge != nil)].filter(\.1).map(\.0)
        if clashes.count > 1 {
            throw ValidationError("\(clashes.joined(separator: " and ")) contradict each other: choose one way to use the cache")
        }
    }

    /// The folder a crawl of one process writes.
    var folder: String { output ?? "mirror-out" }

    func run() async throws {
        // One arena: a crawl's work runs on its event loops and the global pool, and each arena
        // keeps free pages of its own. python3.11-doc's crawl peaked at 63–68 MB with one arena a
        // core, 62.6–64 MB with one; each thread's cache of small blocks (tcache) keeps the one
        // arena's lock out of the profile. Measured on crawls only, so set for them only.
        mirror_limit_heap_arenas(1)
        if let address = sharedOptions.address { return try await runShared(address) }
        let configuration = try crawlConfiguration()
        let credentials = try credentialOptions.credentials(for: configuration)
        let browserExecutable = try locateBrowser()
        let store = try CacheCommand.open(cacheOptions.directory(), configuration: .crawl)
        let journal: CrawlJournal
        let writer: SiteWriter
        do {
            journal = try CrawlJournal(folder: folder, fresh: !resume)
            writer = try SiteWriter(directory: folder, ledger: journal.ledger)
        } catch {
            throw CommandFailure("cannot open the output folder \(folder): \(ErrorText.plain(error))", status: .io)
        }
        if resume && !journal.hasCrawl {
            throw CommandFailure("nothing to resume in \(folder): no crawl was started there (drop --resume)", status: .usage)
        }
        let transport = AsyncHTTPClientTransport(
            connectionsPerHost: perHost, security: try tlsOptions.security(), eventLoops: .own)
        let client = CachingClient(store: store, transport: transport, configuration: clientConfiguration())
        let progress: (@Sendable (CrawlProgress) -> Void)? = quiet || verbose ? nil : ProgressLine().draw
        let events: (@Sendable (CrawlEvent) -> Void)? = verbose ? Self.log : nil
        var renderer: ChromiumRenderer?
        if let browserExecutable { renderer = try await startBrowser(browserExecutable, transport: transport) }
        let crawler = Crawler(
            configuration: configuration, client: client, output: writer, journal: journal,
            renderer: renderer, searchIndexer: FolderSearchIndexer(), credentials: credentials, progress: progress,
            events: events)
        let crawl = Task { try await crawler.run(resume: resume) }
        // Ctrl-C stops fetching, then finishes the folder (links rewritten, manifest written)
        // with what was saved; a second Ctrl-C quits at once.
        let interruption = InterruptHandler { crawl.cancel() }
        let result = await crawl.result
        interruption.cancel()
        await renderer?.close()
        try? await transport.shutdown()
        try credentialOptions.save(credentials)
        let report: CrawlReport
        switch result {
        case .success(let value): report = value
        case .failure(let error as SiteError): throw CommandFailure("cannot write the mirror in \(folder): \(error)", status: .io)
        case .failure(let error as CacheError): throw CommandFailure("the cache failed: \(error)", status: ExitStatus(error))
        case .failure(let error): throw CommandFailure("the crawl failed: \(error)", status: .failure)
        }
        try conclude(report, folder: folder)
    }

    /// Writes the report, prints the summary, indexes and packs the folder when asked, and ends
    /// with the exit code the report calls for. `folder` is nil for a shared worker without one.
    func conclude(_ report: CrawlReport, folder: String?) throws {
        if let path = self.report {
            do {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                try encoder.encode(report).write(to: URL(fileURLWithPath: path))
            } catch {
                throw CommandFailure("cannot write the report \(path): \(ErrorText.plain(error))", status: .io)
            }
        }
        if !quiet { ProgressLine.summary(report, output: folder) }
        for wanted in report.credentialsWanted {
            MirrorCommand.printError(
                "mirror: \(wanted.origin) \(wanted.refused ? "refused the credentials" : "wants credentials") "
                    + "(\(wanted.status)\(wanted.realm.map { ", realm \"\($0)\"" } ?? ""))"
                    + (wanted.refused ? "" : ": give --user, --cookies or --header"))
        }
        if let ended = report.sessionEnded {
            throw CommandFailure(
                "the site ended the login session: \(ended.url) deleted the cookie \(ended.cookie). The crawl stopped "
                    + "there and saved nothing after it; log in again (fresh --cookies) and run with --resume",
                status: .sessionEnded)
        }
        if report.interrupted {
            throw CommandFailure("interrupted; the folder holds what was saved, `--resume` continues", status: .interrupted)
        }
        if !noIndex, let folder { SearchIndexStamp(folder: folder).record() }
        if let bundle, let folder {
            if verbose { Output.log(CrawlEvent.phase("packing \(bundle)").line) }
            try PackCommand.pack(folder, to: bundle, level: 6, quiet: quiet, json: false)
        }
        if report.fetched == 0 && !report.failures.isEmpty {
            throw CommandFailure("nothing could be fetched (\(report.failures[0].message))", status: .network)
        }
        if !report.failures.isEmpty || report.skipped[SkipReason.offlineMiss.rawValue] != nil {
            throw ExitCode(ExitStatus.somePagesFailed.rawValue)
        }
    }

    @Sendable static func log(_ event: CrawlEvent) {
        Output.log(event.line)
    }

    func crawlConfiguration() throws -> CrawlConfiguration {
        for url in urls {
            guard let parts = URLParts(url) else { throw CommandFailure("not an absolute http(s) URL: \(url)", status: .usage) }
            if parts.userinfo != nil {
                throw CommandFailure(
                    "a user or password in a URL is visible to everyone on this machine (ps): give --user NAME "
                        + "and the password with --password-file FILE, $MIRROR_PASSWORD or ~/.netrc", status: .usage)
            }
        }
        var configuration = CrawlConfiguration(seeds: urls)
        configuration.maxDepth = depth
        configuration.maxPages = maxPages
        configuration.allowedHosts = try Self.hostPatterns(allowHost)
        configuration.include = try include.map(Self.pattern)
        configuration.exclude = try exclude.map(Self.pattern)
        configuration.requisites = !noRequisites
        configuration.concurrency = max(1, concurrency)
        configuration.perHost = max(1, perHost)
        configuration.delay = delay?.seconds
        configuration.maxBytes = maxBytes.map { Int($0.bytes) }
        configuration.maxDuration = maxTime?.duration
        configuration.obeyRobots = !ignoreRobots
        configuration.sitemaps = sitemaps
        if let userAgent { configuration.userAgent = userAgent }
        configuration.headers = try HTTPHeaders(
            header.map { line in
                guard let colon = line.firstIndex(of: ":") else {
                    throw CommandFailure("bad --header (want \"Name: value\"): \(line)", status: .usage)
                }
                return (
                    String(line[..<colon]).trimmingCharacters(in: .whitespaces),
                    String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
                )
            })
        configuration.retries = max(0, retries)
        configuration.maxFileSize = maxFileSize.map { Int($0.bytes) }
        configuration.searchIndex = !noIndex
        configuration.keepsCheckScreenshots = keepCheckScreenshots
        return configuration
    }

    /// The browser `--browser` runs, or nil without it; a missing one is a usage error now,
    /// before any request.
    func locateBrowser() throws -> String? {
        do {
            return browser ? try BrowserExecutable.locate(browserPath) : nil
        } catch {
            throw CommandFailure("--browser: \(error)", status: .usage)
        }
    }

    /// Starts the browser; when it cannot start, `transport` is shut down and the command fails.
    func startBrowser(_ executable: String, transport: AsyncHTTPClientTransport) async throws -> ChromiumRenderer {
        do {
            return try await ChromiumRenderer.start(try rendererSettings(executable: executable))
        } catch {
            try? await transport.shutdown()
            throw CommandFailure("--browser: \(error)", status: .failure)
        }
    }

    /// The browser's settings: its tabs and page timeout, and the cache folder's interception CA
    /// (trusted by this browser process only) so that HTTPS pages go through the crawl too.
    func rendererSettings(executable: String) throws -> ChromiumRenderer.Settings {
        var settings = ChromiumRenderer.Settings(executable: executable)
        settings.tabs = max(1, browserTabs)
        settings.pageTimeout = pageTimeout.duration
        settings.checksPages = !noPageCheck
        let authority = try ProxyCommand.CertificateAuthority.load(cacheOptions.directory())
        settings.interception = authority
        settings.interceptionSPKI = authority.spkiSHA256
        return settings
    }

    func clientConfiguration() -> CachingClient.Configuration {
        var configuration = CachingClient.Configuration()
        configuration.mode = offline ? .offline : refresh ? .refresh : maxAge.map { .maxAge($0.seconds) } ?? .standard
        configuration.timeout = timeout.duration
        if let maxFileSize { configuration.maxBodySize = Int(maxFileSize.bytes) }
        return configuration
    }

    /// `--allow-host` values, parsed; a bad one is a usage error.
    static func hostPatterns(_ patterns: [String]) throws -> [HostPattern] {
        try patterns.map { pattern in
            guard let host = HostPattern(pattern) else { throw CommandFailure("bad --allow-host pattern: \(pattern)", status: .usage) }
            return host
        }
    }

    static func pattern(_ source: String) throws -> URLPattern {
        do { return try URLPattern(source) } catch {
            throw CommandFailure("bad regular expression \(source): \(error)", status: .usage)
        }
    }
}
