import ArgumentParser

/// `mirror export`: write the cache's responses as a WARC file for archivists.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export cached responses as a WARC 1.1 file.",
        discussion: "Examples:\n  mirror export --warc site.warc.gz --cache ./cache"
    )

    @Option(help: ArgumentHelp("The WARC file to write.", valueName: "FILE.warc.gz")) var warc: String
    @OptionGroup var cacheOptions: CacheOptions

    func run() async throws {
        throw CommandFailure.notAvailable("export")
    }
}
