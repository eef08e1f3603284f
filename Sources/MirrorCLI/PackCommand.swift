import ArgumentParser

/// `mirror pack`: turn a mirrored folder into one reproducible .tar.gz bundle.
struct PackCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pack",
        abstract: "Pack a mirrored folder into a gzip-compressed bundle.",
        discussion: "Example:\n  mirror pack docs -o docs.tar.gz"
    )

    @Argument(help: ArgumentHelp("The mirrored folder.", valueName: "DIR")) var directory: String
    @Option(name: [.short, .long], help: ArgumentHelp("The bundle to write.", valueName: "FILE.tar.gz")) var output: String
    @Option(help: "gzip level, 0 to 9.") var level: Int = 6

    func run() async throws {
        throw CommandFailure.notAvailable("pack")
    }
}
