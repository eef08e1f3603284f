import Foundation
import MirrorCache
import MirrorCrawl
import MirrorCredentials
import MirrorHTTP
import MirrorShared
import MirrorSite
import MirrorTestSupport
import Testing

/// A worker of a shared crawl run in the test's own process (`SharedWorker`), against a
/// PostgreSQL server the test starts and the in-process origin.
@Suite("a shared worker in this process", .serialized)
struct SharedWorkerTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("worker-\(UUID().uuidString)").path

    /// A crawl of one process of `origin` into `root/name`, in this process too.
    func crawlAlone(_ origin: TestOrigin, into name: String) async throws -> CrawlReport {
        let store = try CacheStore(directory: root + "/\(name)-cache")
        let journal = try CrawlJournal(folder: root + "/" + name, fresh: true)
        let transport = AsyncHTTPClientTransport(connectionsPerHost: 4)
        let client = CachingClient(store: store, transport: transport, configuration: .init())
        let crawler = Crawler(
            configuration: CrawlConfiguration(seeds: [origin.url("/")]), client: client,
            output: try SiteWriter(directory: root + "/" + name, ledger: journal.ledger), journal: journal)
        let report: Result<CrawlReport, any Error>
        do { report = .success(try await crawler.run(resume: false)) } catch { report = .failure(error) }
        try? await transport.shutdown()
        return try report.get()
    }

    @Test func aLoneWorkerFetchesEachURLOnceAndMakesTheFolderACrawlOfOneProcessMakes() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let origin = try await TestOrigin.start(site: FixtureSite(root: try GeneratedSite.write(pages: 30, to: root + "/site")))
        do {
            let alone = try await crawlAlone(origin, into: "reference")
            origin.clearLog()
            try await TestPostgres.with { postgres in
                // Five minutes, not the default 30 s: at the start of a full run the cooperative pool,
                // which the connection's tasks need, stays busy for longer than that.
                let database = try await SharedDatabase.connect(postgres.url, patience: .seconds(300))
                let configuration = CrawlConfiguration(seeds: [origin.url("/")])
                let crawl = try await SharedCrawl.join(
                    database, name: "in-process", options: [:], configuration: configuration,
                    lease: .seconds(30))
                let transport = AsyncHTTPClientTransport(connectionsPerHost: 4)
                let worker = SharedWorker(
                    crawl: crawl,
                    parts: SharedWorker.Parts(
                        configuration: configuration, credentials: CrawlCredentials(configuration: configuration),
                        store: try CacheStore(directory: root + "/worker-cache"), transport: transport, clientConfiguration: .init(),
                        output: root + "/worker"))
                let outcome: Result<SharedWorker.Outcome, any Error>
                do { outcome = .success(try await worker.run { _ in {} }) } catch { outcome = .failure(error) }
                try? await transport.shutdown()
                await database.close()
                guard case .finished(let report) = try outcome.get() else {
                    Issue.record("the worker was interrupted")
                    return
                }
                #expect(report.pages == alone.pages && report.requisites == alone.requisites)
                #expect(report.failures.isEmpty)
                let paths = origin.requests.map(\.path)
                #expect(paths.count == Set(paths).count, "a URL was fetched twice")
                let expected = FolderContents.files(root + "/reference", excluding: [".mirror/"])
                let folder = FolderContents.files(root + "/worker", excluding: [".mirror/"])
                #expect(Set(folder.keys) == Set(expected.keys))
                #expect(folder.filter { expected[$0.key] != $0.value }.isEmpty, "files differ")
            }
        } catch {
            try? await origin.shutdown()
            throw error
        }
        try await origin.shutdown()
    }
}
