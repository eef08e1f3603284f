import ArgumentParser
import Crypto
import Foundation
import MirrorBrowser
import MirrorCache
import MirrorCore
import MirrorCrawl
import MirrorCredentials
import MirrorHTTP
import MirrorSearch
import MirrorShared
import MirrorSite

/// `mirror crawl --shared postgres://…`: this process is one worker (`SharedWorker`) of a crawl
/// whose frontier, politeness, budgets and responses live in PostgreSQL.
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

    private func runWorker(
        _ database: SharedDatabase, configuration: CrawlConfiguration, credentials: CrawlCredentials,
        browserExecutable: String?
    ) async throws {
        let name = sharedOptions.crawlName ?? defaultCrawlName(configuration)
        if sharedOptions.status {
            guard let status = try await SharedStatus.read(database, name: name) else {
                throw CommandFailure("no shared crawl named \(name) in \(database.address)", status: .usage)
            }
            print(status.text)
            return
        }
        let crawl = try await SharedCrawl.join(
            database, name: name, options: sharedValues(), configuration: configuration, lease: sharedOptions.lease.duration)
        if verbose { Output.log("-- worker \(crawl.worker) \(crawl.began ? "began" : "joined") round \(crawl.round) of \(name)") }
        let store = try CacheCommand.open(cacheOptions.directory(), configuration: .crawl)
        let transport = AsyncHTTPClientTransport(
            connectionsPerHost: perHost, security: try tlsOptions.security(), eventLoops: .own)
        var startBrowser: (@Sendable () async throws -> any PageRenderer)?
        if let browserExecutable {
            startBrowser = { [self] in try await self.startBrowser(browserExecutable, transport: transport) }
        }
        let worker = SharedWorker(
            crawl: crawl,
            parts: SharedWorker.Parts(
                configuration: configuration, credentials: credentials, store: store, transport: transport,
                clientConfiguration: clientConfiguration(), output: output, startBrowser: startBrowser,
                searchIndexer: FolderSearchIndexer(),
                progress: quiet || verbose ? nil : ProgressLine().draw, events: verbose ? Self.log : nil))
        let outcome: Result<SharedWorker.Outcome, any Error>
        do {
            outcome = .success(try await worker.run { interrupt in InterruptHandler(interrupt).cancel })
        } catch {
            outcome = .failure(error)
        }
        try? await transport.shutdown()
        switch try outcome.mapError(Self.folderFailure).get() {
        case .interrupted:
            throw CommandFailure("interrupted; this worker's claims went back to the shared crawl", status: .interrupted)
        case .finished(let report):
            try credentialOptions.save(credentials)
            try conclude(report, folder: output)
        }
    }

    /// The command's failure for a folder the worker could not open or write; other errors as they are.
    private static func folderFailure(_ error: any Error) -> any Error {
        switch error {
        case SharedWorker.FolderError.cannotOpen(let folder, let error):
            CommandFailure("cannot open the output folder \(folder): \(ErrorText.plain(error))", status: .io)
        case SharedWorker.FolderError.cannotWrite(let folder, let error):
            CommandFailure("cannot write the mirror in \(folder): \(error)", status: .io)
        default:
            error
        }
    }

    /// The options every worker of a crawl must share, by name, as given.
    private func sharedValues() -> KeyValuePairs<String, String> {
        [
            "URLs": urls.joined(separator: " "), "--depth": depth.map(String.init) ?? "", "--max-pages": maxPages.map(String.init) ?? "",
            "--allow-host": allowHost.joined(separator: " "), "--include": include.joined(separator: " "),
            "--exclude": exclude.joined(separator: " "), "--no-requisites": String(noRequisites), "--per-host": String(perHost),
            "--delay": delay.map { String($0.seconds) } ?? "", "--ignore-robots": String(ignoreRobots), "--sitemaps": String(sitemaps),
            // The headers' digest, not their values: the database is no place for a token.
            "--user-agent": userAgent ?? "",
            "--header": header.isEmpty ? "" : "sha256:" + Hex.string(SHA256.hash(data: Array(header.joined(separator: "\n").utf8))),
            "--max-file-size": maxFileSize.map { String($0.bytes) } ?? "", "--browser": String(browser),
        ]
    }

    /// `crawl-` and a digest of the seeds and the scope options: the same command line on every
    /// machine names the same crawl.
    private func defaultCrawlName(_ configuration: CrawlConfiguration) -> String {
        let scope = [
            urls.joined(separator: " "), depth.map(String.init) ?? "", allowHost.joined(separator: " "),
            include.joined(separator: " "), exclude.joined(separator: " "), String(noRequisites),
        ].joined(separator: "\n")
        return "crawl-" + Hex.string(SHA256.hash(data: Array(scope.utf8))).prefix(12)
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
