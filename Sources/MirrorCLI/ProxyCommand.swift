import ArgumentParser

/// `mirror proxy`: a caching HTTP proxy that records while online and replays offline.
struct ProxyCommand: AsyncParsableCommand {
    enum Mode: String, ExpressibleByArgument, CaseIterable {
        case record, replay, passthrough
    }

    static let configuration = CommandConfiguration(
        commandName: "proxy",
        abstract: "Run a caching HTTP proxy (record, replay or passthrough).",
        discussion: """
            Examples:
              mirror proxy --port 3128 --mode record
              mirror proxy --port 3128 --mode replay
            """
    )

    @Option(help: "The address to listen on.") var host: String = "127.0.0.1"
    @Option(help: "The port to listen on.") var port: Int = 3128
    @OptionGroup var cacheOptions: CacheOptions
    @Option(help: "record, replay or passthrough.") var mode: Mode = .record
    @Option(help: ArgumentHelp("Act as a reverse proxy for this origin.", valueName: "URL")) var upstream: String?

    func run() async throws {
        throw CommandFailure.notAvailable("proxy")
    }
}
