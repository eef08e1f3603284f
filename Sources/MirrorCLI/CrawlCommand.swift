import ArgumentParser

/// `mirror crawl`: snapshot sites breadth-first into a browsable folder (and optionally a bundle).
struct CrawlCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crawl",
        abstract: "Snapshot one or more sites into an offline folder.",
        discussion: """
            Examples:
              mirror crawl https://docs.example.org/ -o docs
              mirror crawl https://example.org/ --depth 2 --allow-host '*.example.org' --report crawl.json
              mirror crawl https://example.org/ --offline --cache ./cache -o copy   # no network at all
            """
    )

    @Argument(help: "The seed URLs.") var urls: [String]
    @Option(name: [.short, .long], help: ArgumentHelp("The output folder.", valueName: "DIR")) var output: String = "mirror-out"
    @OptionGroup var cacheOptions: CacheOptions
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
    @Option(help: "Seconds to wait between requests to one host.") var delay: Double?
    @Flag(help: "Do not obey robots.txt.") var ignoreRobots = false
    @Flag(help: "Also crawl the URLs listed in the sites' sitemaps.") var sitemaps = false
    @Option(help: "The User-Agent header.") var userAgent: String?
    @Option(help: ArgumentHelp("An extra request header.", valueName: "K: V")) var header: [String] = []
    @Option(help: "Seconds before a request times out.") var timeout: Double = 30
    @Option(help: "Retries for a failed request.") var retries: Int = 2
    @Option(help: ArgumentHelp("Skip files larger than this.", valueName: "BYTES")) var maxFileSize: Int?
    @Option(help: "Use a cached response younger than this without asking the origin.") var maxAge: Int?
    @Flag(help: "Never touch the network: use the cache only.") var offline = false
    @Flag(help: "Revalidate every cached response with the origin.") var refresh = false
    @Flag(help: "Continue an interrupted crawl without redoing finished work.") var resume = false
    @Option(help: ArgumentHelp("Also pack the result into this bundle.", valueName: "FILE.tar.gz")) var bundle: String?
    @Option(help: ArgumentHelp("Write a JSON report here.", valueName: "FILE.json")) var report: String?
    @Flag(name: [.short, .long], help: "Print nothing but errors.") var quiet = false

    func run() async throws {
        throw CommandFailure.notAvailable("crawl")
    }
}
