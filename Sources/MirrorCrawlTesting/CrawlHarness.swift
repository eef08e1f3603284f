import Foundation
public import MirrorCache
public import MirrorCrawl
public import MirrorCredentials
import MirrorHTTP
import MirrorSearch
public import MirrorSite

/// Runs real crawls (real store, real transport) into temporary folders.
public struct CrawlHarness: Sendable {
    static let sharedTransport = AsyncHTTPClientTransport()
    let transport: any HTTPTransport
    public let root = FileManager.default.temporaryDirectory.appendingPathComponent("crawl-\(UUID().uuidString)").path
    public var cache: String { root + "/cache" }

    /// - Parameter transport: the transport to crawl with; by default one shared by all harnesses.
    public init(transport: (any HTTPTransport)? = nil) {
        self.transport = transport ?? Self.sharedTransport
    }

    /// Makes a harness as `init` does, runs `body` with it, and removes its `root` afterwards, also
    /// when `body` throws (its error is rethrown then): nothing the crawls wrote outlives the test.
    public static func with<T>(
        transport: (any HTTPTransport)? = nil, isolation: isolated (any Actor)? = #isolation,
        _ body: (CrawlHarness) async throws -> T
    ) async throws -> T {
        let harness = CrawlHarness(transport: transport)
        defer { try? FileManager.default.removeItem(atPath: harness.root) }
        return try await body(harness)
    }

    /// Removes `root` and everything in it; for a harness a test keeps beyond one scope.
    public func remove() {
        try? FileManager.default.removeItem(atPath: root)
    }

    public func crawl(
        _ seeds: [String], output name: String = "out", mode: CacheMode = .standard, resume: Bool = false,
        maxBodySize: Int = 1 << 30, renderer: (any PageRenderer)? = nil, credentials: CrawlCredentials? = nil,
        _ configure: (inout CrawlConfiguration) -> Void = { _ in }
    ) async throws -> CrawlReport {
        var configuration = CrawlConfiguration(seeds: seeds)
        configuration.retries = 1
        configure(&configuration)
        var clientConfiguration = CachingClient.Configuration()
        clientConfiguration.mode = mode
        // As long as a test may take: on a loaded run an origin answers late, and a request that
        // timed out is sent again, which the tests of politeness count as a second fetch or a
        // second request in flight.
        clientConfiguration.timeout = .seconds(120)
        clientConfiguration.maxBodySize = maxBodySize
        var storeConfiguration = CacheStore.Configuration()
        storeConfiguration.groupCommit = CacheStore.GroupCommit()
        let store = try CacheStore(directory: cache, configuration: storeConfiguration)
        let client = CachingClient(store: store, transport: transport, configuration: clientConfiguration)
        let output = root + "/" + name
        let journal = try CrawlJournal(folder: output, fresh: !resume)
        let crawler = Crawler(
            configuration: configuration, client: client,
            output: try SiteWriter(directory: output, ledger: journal.ledger), journal: journal,
            renderer: renderer, searchIndexer: FolderSearchIndexer(), credentials: credentials)
        return try await crawler.run(resume: resume)
    }

    /// The manifest of a finished crawl.
    public func manifest(_ name: String = "out") throws -> SiteManifest {
        let data = try Data(contentsOf: URL(fileURLWithPath: root + "/" + name + "/.mirror/manifest.json"))
        return try JSONDecoder().decode(SiteManifest.self, from: data)
    }

    public func fileExists(_ name: String, _ path: String) -> Bool {
        FileManager.default.fileExists(atPath: root + "/" + name + "/" + path)
    }
}
