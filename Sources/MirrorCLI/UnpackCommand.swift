import ArgumentParser

/// `mirror unpack`: safely extract a bundle, optionally reloading its responses into a cache.
struct UnpackCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unpack",
        abstract: "Extract a bundle into a folder, refusing anything unsafe.",
        discussion: """
            Examples:
              mirror unpack docs.tar.gz -o docs
              mirror unpack docs.tar.gz -o docs --into-cache ~/.cache/mirror
              mirror unpack --check docs.tar.gz
            """
    )

    @Argument(help: ArgumentHelp("The bundle.", valueName: "FILE.tar.gz")) var bundle: String
    @Option(name: [.short, .long], help: ArgumentHelp("The folder to create.", valueName: "DIR")) var output: String?
    @Option(help: ArgumentHelp("Also load the bundle's responses into this cache.", valueName: "DIR")) var intoCache: String?
    @Flag(help: "Only verify every digest against the manifest; write nothing.") var check = false

    func run() async throws {
        throw CommandFailure.notAvailable("unpack")
    }
}
