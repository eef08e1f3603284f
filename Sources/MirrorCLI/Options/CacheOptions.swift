import ArgumentParser
import Foundation

/// `--cache DIR`, shared by every command that touches the cache.
struct CacheOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The cache folder.", discussion: "Default: $MIRROR_CACHE, else $XDG_CACHE_HOME/mirror, else ~/.cache/mirror.",
            valueName: "DIR"))
    var cache: String?

    /// The folder to use: the option, else the environment's choice.
    func directory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        Self.resolve(option: cache, environment: environment)
    }

    static func resolve(option: String?, environment: [String: String]) -> String {
        if let option, !option.isEmpty { return option }
        if let explicit = environment["MIRROR_CACHE"], !explicit.isEmpty { return explicit }
        if let xdg = environment["XDG_CACHE_HOME"], !xdg.isEmpty { return xdg + "/mirror" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.cache/mirror"
    }
}
