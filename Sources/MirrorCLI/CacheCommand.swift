import ArgumentParser

/// `mirror cache`: inspect and maintain the shared cache.
struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Inspect and maintain the HTTP cache.",
        discussion: """
            Examples:
              mirror cache stats --json
              mirror cache show https://example.org/
              mirror cache verify --repair
            """,
        subcommands: [Stats.self, List.self, Show.self, Remove.self, Prune.self, Clear.self, Verify.self, Import.self]
    )

    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Entries, sizes and hit counts.")
        @OptionGroup var cacheOptions: CacheOptions
        @Flag(help: "Print JSON.") var json = false
        func run() async throws { throw CommandFailure.notAvailable("cache stats") }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "ls", abstract: "List cached URLs.")
        @OptionGroup var cacheOptions: CacheOptions
        @Flag(help: "Print JSON.") var json = false
        func run() async throws { throw CommandFailure.notAvailable("cache ls") }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one entry's status, headers and freshness.")
        @Argument var url: String
        @OptionGroup var cacheOptions: CacheOptions
        @Flag(help: "Print JSON.") var json = false
        func run() async throws { throw CommandFailure.notAvailable("cache show") }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Remove one URL's entries.")
        @Argument var url: String
        @OptionGroup var cacheOptions: CacheOptions
        @Flag(help: "Print JSON.") var json = false
        func run() async throws { throw CommandFailure.notAvailable("cache rm") }
    }

    struct Prune: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Evict least recently used entries down to the low watermark.")
        @OptionGroup var cacheOptions: CacheOptions
        @Flag(help: "Print JSON.") var json = false
        func run() async throws { throw CommandFailure.notAvailable("cache prune") }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove every entry.")
        @OptionGroup var cacheOptions: CacheOptions
        @Flag(help: "Print JSON.") var json = false
        func run() async throws { throw CommandFailure.notAvailable("cache clear") }
    }

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Check every entry's body against its digest.")
        @OptionGroup var cacheOptions: CacheOptions
        @Flag(help: "Drop damaged entries and rebuild a lost index from the body files.") var repair = false
        @Flag(help: "Print JSON.") var json = false
        func run() async throws { throw CommandFailure.notAvailable("cache verify") }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Load a bundle's responses into the cache.")
        @Argument(help: ArgumentHelp("The bundle.", valueName: "FILE.tar.gz")) var bundle: String
        @OptionGroup var cacheOptions: CacheOptions
        @Flag(help: "Print JSON.") var json = false
        func run() async throws { throw CommandFailure.notAvailable("cache import") }
    }
}
