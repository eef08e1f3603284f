import ArgumentParser
import Foundation

/// `mirror crawl --shared`: the options of a worker of a crawl shared through PostgreSQL.
struct SharedOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Be one worker of a crawl shared through this PostgreSQL database (default: $MIRROR_SHARED).",
            valueName: "postgres://USER[:PASSWORD]@HOST[:PORT]/DB"))
    var shared: String?
    @Option(help: ArgumentHelp("The shared crawl's name (default: from the seeds and the scope options).", valueName: "NAME"))
    var crawlName: String?
    @Option(help: ArgumentHelp("How long a URL claimed by a worker stays its own without renewal (--shared).", valueName: "DURATION"))
    var lease = TimeSpan(seconds: 60)
    @Flag(help: "Print the shared crawl's progress (queued, claimed, done, failed; each worker) and exit (--shared).")
    var status = false

    /// The database's address: `--shared`, else `$MIRROR_SHARED`.
    var address: String? {
        shared ?? ProcessInfo.processInfo.environment["MIRROR_SHARED"].flatMap { $0.isEmpty ? nil : $0 }
    }

    func validate() throws {
        if address == nil && (status || crawlName != nil) {
            throw ValidationError("--status and --crawl-name need --shared (or $MIRROR_SHARED)")
        }
        if lease.seconds < 3 { throw ValidationError("--lease must be at least 3 seconds") }
    }
}
