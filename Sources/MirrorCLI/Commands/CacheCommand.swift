import ArgumentParser
import Foundation
import MirrorArchive
import MirrorBundle
import MirrorCache
import MirrorCore

/// `mirror cache`: inspect and maintain the shared cache.
struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Inspect and maintain the HTTP cache.",
        discussion: """
            Examples:
              mirror cache stats --json
              mirror cache ls
              mirror cache show https://example.org/
              mirror cache prune --max-size 500000000
              mirror cache verify --repair
              mirror cache import crawl.warc.gz
            """,
        subcommands: [Stats.self, List.self, Show.self, Remove.self, Prune.self, Clear.self, Verify.self, Import.self]
    )

    /// Options every cache subcommand shares.
    struct Common: ParsableArguments {
        @OptionGroup var cacheOptions: CacheOptions
        @Flag(help: "Print JSON.") var json = false

        func openStore() throws -> CacheStore {
            try CacheCommand.open(cacheOptions.directory())
        }
    }

    /// Opens the cache in `directory`, holding at most `memoryCapacity` bytes of bodies in memory.
    static func open(_ directory: String, memoryCapacity: Int = CacheStore.Configuration().memoryCapacity) throws -> CacheStore {
        var configuration = CacheStore.Configuration()
        configuration.memoryCapacity = memoryCapacity
        return try open(directory, configuration: configuration)
    }

    /// Opens the cache in `directory` as `configuration` says; a damaged index or an I/O error
    /// is the command's failure.
    static func open(_ directory: String, configuration: CacheStore.Configuration) throws -> CacheStore {
        do {
            return try CacheStore(directory: directory, configuration: configuration)
        } catch let error as CacheError {
            if error.code == .corruptIndex { throw CommandFailure(error.description, status: .cacheDamaged) }
            throw CommandFailure(error.description, status: .io)
        }
    }

    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Entries, bodies and sizes.")
        @OptionGroup var common: Common

        func run() async throws {
            let statistics = try common.openStore().statistics()
            if common.json { return try Output.json(statistics) }
            Output.line(
                """
                cache:    \(statistics.directory)
                entries:  \(statistics.entries)
                bodies:   \(statistics.bodies) (identical bodies are stored once)
                size:     \(Output.bytes(statistics.bodyBytes)) of \(Output.bytes(statistics.capacityBytes))
                """)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "ls", abstract: "List cached URLs.")
        @OptionGroup var common: Common

        func run() async throws {
            let entries = try common.openStore().allEntries()
            if common.json { return try Output.json(entries.map(EntrySummary.init)) }
            // A private entry was obtained with credentials: only a request with the same ones is answered from it.
            for entry in entries {
                Output.line(
                    "\(entry.status)  \(Output.bytes(entry.size).padding(toLength: 9, withPad: " ", startingAt: 0))  "
                        + (entry.isPrivate ? "private  " : "") + entry.url)
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one URL's stored status, headers and freshness.")
        @Argument(help: "The URL.") var url: String
        @OptionGroup var common: Common

        func run() async throws {
            let store = try common.openStore()
            let entries = try store.entries(for: try CacheCommand.key(url))
            guard !entries.isEmpty else { throw CommandFailure("nothing is stored for \(url)", status: .failure) }
            let details = entries.map { EntryDetails($0, policy: CachePolicy(), now: Date().timeIntervalSince1970) }
            if common.json { return try Output.json(details) }
            for detail in details {
                Output.line(
                    """
                    \(detail.summary.url)
                      status:     \(detail.summary.status)
                      size:       \(detail.summary.size) bytes, sha256 \(detail.summary.digest)
                      stored:     \(HTTPDate.format(Int64(detail.summary.responseTime)))
                      age:        \(Int(detail.age)) s, fresh for \(Int(detail.freshnessLifetime)) s (\(detail.isFresh ? "fresh" : "stale"))
                      vary:       \(detail.summary.varyKey.isEmpty ? "-" : detail.summary.varyKey.replacingOccurrences(of: "\n", with: "; "))
                      private:    \(detail.summary.isPrivate ? "yes, obtained with credentials" : "no")
                      headers:
                    \(detail.headers.map { "    \($0)" }.joined(separator: "\n"))
                    """)
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Remove every stored variant of a URL.")
        @Argument(help: "The URL.") var url: String
        @OptionGroup var common: Common

        func run() async throws {
            let removed = try common.openStore().remove(url: try CacheCommand.key(url))
            if common.json { return try Output.json(["removed": removed]) }
            guard removed > 0 else { throw CommandFailure("nothing is stored for \(url)", status: .failure) }
            Output.line("removed \(removed) \(removed == 1 ? "entry" : "entries")")
        }
    }

    struct Prune: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Evict least recently used entries down to the low watermark (or --max-size).")
        @Option(help: ArgumentHelp("Evict until bodies take at most this many bytes.", valueName: "BYTES"))
        var maxSize: Int?
        @OptionGroup var common: Common

        func run() async throws {
            let store = try common.openStore()
            let evicted = try store.prune(to: maxSize)
            let statistics = try store.statistics()
            if common.json { return try Output.json(["evicted": evicted, "bodyBytes": statistics.bodyBytes]) }
            Output.line("evicted \(evicted) entries; \(Output.bytes(statistics.bodyBytes)) left")
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove every entry.")
        @OptionGroup var common: Common

        func run() async throws {
            let store = try common.openStore()
            let count = try store.statistics().entries
            try store.clear()
            if common.json { return try Output.json(["removed": count]) }
            Output.line("removed \(count) entries")
        }
    }

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check every body against its digest; exits 11 when something is wrong.",
            discussion: "With --repair, damaged entries are dropped, orphan files removed, and a damaged index rebuilt from the entry log.")
        @Flag(help: "Fix what is found.") var repair = false
        @OptionGroup var common: Common

        func run() async throws {
            let directory = common.cacheOptions.directory()
            let report =
                repair
                ? try CacheStore.repair(directory: directory)
                : try CacheCommand.open(directory).verify(repair: false)
            if common.json {
                try Output.json(report)
            } else {
                Output.line("checked \(report.entriesChecked) entries, \(report.bodiesChecked) bodies")
                for url in report.damagedBodies { Output.line("damaged body: \(url)") }
                for url in report.missingBodies { Output.line("missing body: \(url)") }
                for problem in report.indexProblems { Output.line("index: \(problem)") }
                if report.orphanFiles > 0 { Output.line("\(report.orphanFiles) body files belong to no entry") }
                Output.line(report.repaired ? "repaired" : report.isHealthy ? "ok" : "problems found; run with --repair")
            }
            if !report.isHealthy && !report.repaired {
                throw ExitCode(ExitStatus.cacheDamaged.rawValue)
            }
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Load the responses of a bundle, a WARC or a WACZ into the cache.",
            discussion: """
                The file's kind is read from its first bytes. From a WARC (plain or gzip, written \
                by mirror, wget, Heritrix, warcio, browsertrix…) or a WACZ, response and revisit \
                records become cache entries with their status, headers and dates, and request \
                records give the Vary keys; other records are counted and skipped with a reason. \
                A damaged or truncated archive is reported with the offset of the record where \
                reading stopped (exit code 10); what came before it stays imported.

                Examples:
                  mirror cache import docs.tar.gz
                  mirror cache import crawl.warc.gz --cache ./cache
                  mirror cache import site.wacz --json
                """)
        @Argument(help: ArgumentHelp("A bundle (.tar.gz), a WARC (.warc.gz, .warc) or a WACZ.", valueName: "FILE")) var file: String
        @OptionGroup var common: Common
        @OptionGroup var limits: BundleLimitOptions

        func run() async throws {
            // Bodies pass through once: the cache's memory tier would only hold on to them.
            let store = try CacheCommand.open(common.cacheOptions.directory(), memoryCapacity: 0)
            if ArchiveFormat.detect(file) != nil { return try importArchive(into: store) }
            let count: Int
            do {
                count = try BundleImporter(store: store).importBundle(file, unpacker: limits.unpacker)
            } catch let error as BundleError {
                throw CommandFailure(error)
            } catch let error as CacheError {
                throw CommandFailure("\(error)", status: ExitStatus(error))
            }
            if common.json {
                try Output.json(["imported": count])
            } else {
                Output.line("imported \(count) responses from \(file)")
            }
        }

        private func importArchive(into store: CacheStore) throws {
            let summary: ImportSummary
            do {
                summary = try ArchiveImporter(store: store).importArchive(file)
            } catch let error as ArchiveError {
                throw CommandFailure(error)
            }
            if common.json {
                try Output.json(summary)
            } else {
                let updated = summary.updated > 0 ? " (and refreshed \(summary.updated))" : ""
                Output.line("imported \(summary.imported) responses\(updated) from \(summary.records) records of \(file)")
                for (reason, count) in summary.skipped.sorted(by: { $0.key < $1.key }) {
                    Output.line("  skipped \(count): \(reason)")
                }
            }
            if let error = summary.error { throw CommandFailure(error, status: .badBundle) }
        }
    }

    /// The cache key of a URL typed by the user.
    static func key(_ url: String) throws -> String {
        guard let key = URLNormalizer.normalize(url) else {
            throw CommandFailure("not an absolute http(s) URL: \(url)", status: .usage)
        }
        return key
    }
}

/// One entry as `ls --json` prints it.
struct EntrySummary: Encodable {
    let url: String
    let status: Int
    let size: Int
    let digest: String
    /// The Vary key without what stands for credentials.
    let varyKey: String
    /// Obtained with credentials: answers only requests that carry the same ones.
    let isPrivate: Bool
    let requestTime: Double
    let responseTime: Double
    let lastAccess: Double

    init(_ entry: CacheEntry) {
        url = entry.url
        status = entry.status
        size = entry.size
        digest = entry.digest
        varyKey = entry.shareableVaryKey
        isPrivate = entry.isPrivate
        requestTime = entry.requestTime
        responseTime = entry.responseTime
        lastAccess = entry.lastAccess
    }
}

/// One entry as `show` prints it: the summary plus headers and freshness now.
struct EntryDetails: Encodable {
    let summary: EntrySummary
    let headers: [String]
    let age: Double
    let freshnessLifetime: Double
    let isFresh: Bool

    init(_ entry: CacheEntry, policy: CachePolicy, now: Double) {
        summary = EntrySummary(entry)
        headers = entry.headers.map { "\($0.name): \($0.value)" }
        age = policy.currentAge(entry.head, now: now)
        freshnessLifetime = policy.freshnessLifetime(entry.head)
        isFresh = age < freshnessLifetime
    }
}
