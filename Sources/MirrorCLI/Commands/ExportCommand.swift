import ArgumentParser
import Foundation
import MirrorArchive
import MirrorCore

/// `mirror export`: write the cache's (or a mirrored folder's) responses as a WARC file or a
/// WACZ package, for web archivists and the tools they replay with.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export responses as a WARC 1.1 file or a WACZ package.",
        discussion: """
            From the cache (the default) or from a folder written by mirror crawl (--from DIR, \
            with the original bodies of rewritten files). Each response becomes a request and a \
            response record, one gzip member each; a body already exported becomes a revisit \
            record. A WACZ holds the WARC (stored uncompressed), a sorted CDXJ index, the HTML \
            pages with their titles, and a data package with every file's size and SHA-256.

            Examples:
              mirror export --warc site.warc.gz --cache ./cache
              mirror export --wacz docs.wacz --from docs-mirror
              mirror export --warc recent.warc.gz --since 2d
              mirror export --warc docs.warc.gz --url-prefix https://docs.example.org/
            """
    )

    @Option(help: ArgumentHelp("The WARC file to write.", valueName: "FILE.warc.gz")) var warc: String?
    @Option(help: ArgumentHelp("The WACZ package to write.", valueName: "FILE.wacz")) var wacz: String?
    @Option(help: ArgumentHelp("Export this mirrored folder instead of the cache.", valueName: "DIR")) var from: String?
    @OptionGroup var cacheOptions: CacheOptions
    @Option(
        name: .customLong("url-prefix"),
        help: ArgumentHelp(
            "Only URLs that start with this (repeatable).", valueName: "PREFIX"))
    var urlPrefixes: [String] = []
    @Option(
        help: ArgumentHelp(
            "Only responses received since then: a date (2024-05-01, 2024-05-01T12:00:00Z) or an age (2h, 7d).",
            valueName: "DATE"))
    var since: ExportSince?
    @Flag(name: [.short, .long], help: "Print nothing but errors.") var quiet = false
    @Flag(help: "Print the result as JSON.") var json = false

    func validate() throws {
        guard (warc == nil) != (wacz == nil) else {
            throw ValidationError("say what to write: --warc FILE.warc.gz or --wacz FILE.wacz (one of them)")
        }
        if from != nil && cacheOptions.cache != nil {
            throw ValidationError("--from DIR exports a folder and --cache DIR a cache: give one of them")
        }
    }

    func run() async throws {
        var options = ArchiveExporter.Options()
        options.software = "mirror \(MirrorCommand.version)"
        options.urlPrefixes = urlPrefixes.map { URLNormalizer.normalize($0) ?? $0 }
        options.since = since?.seconds(before: options.now())
        let exporter = ArchiveExporter(options: options)
        let summary: ArchiveExporter.Summary
        do {
            // Each body is read once: the cache's memory tier would only hold on to them.
            let source = try from.map(ArchiveSource.folder) ?? .cache(CacheCommand.open(cacheOptions.directory(), memoryCapacity: 0))
            summary = try wacz.map { try exporter.exportWACZ(source, to: $0) } ?? exporter.exportWARC(source, to: warc ?? "")
        } catch let error as ArchiveError {
            throw CommandFailure(error)
        }
        if json {
            try Output.json(summary)
        } else if !quiet {
            let pages = wacz == nil ? "" : ", \(summary.pages) pages"
            Output.line(
                "exported \(summary.responses) responses and \(summary.revisits) revisits\(pages) to \(summary.output) "
                    + "(\(Output.bytes(summary.bytes)))" + (summary.sha256.map { ", sha256 \($0)" } ?? ""))
        }
        guard summary.damaged.isEmpty else {
            for url in summary.damaged.prefix(10) { Output.log("left out (damaged body): \(url)") }
            throw CommandFailure(
                "\(summary.damaged.count) responses were left out: their bodies no longer match their digests "
                    + (from == nil ? "(mirror cache verify --repair drops them)" : "(re-crawl the folder)"),
                status: .cacheDamaged)
        }
    }
}
