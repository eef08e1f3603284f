import ArgumentParser

/// `mirror serve`: serve a mirrored folder or bundle over HTTP, offline.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a mirrored folder or bundle over HTTP.",
        discussion: "Examples:\n  mirror serve docs --port 8080\n  mirror serve docs.tar.gz"
    )

    @Argument(help: ArgumentHelp("A mirrored folder or bundle.", valueName: "DIR|FILE.tar.gz")) var source: String
    @Option(help: "The address to listen on.") var host: String = "127.0.0.1"
    @Option(help: "The port to listen on (0 picks a free one).") var port: Int = 8080

    func run() async throws {
        throw CommandFailure.notAvailable("serve")
    }
}
