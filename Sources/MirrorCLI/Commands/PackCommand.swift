import ArgumentParser
import Foundation
import MirrorBundle

/// `mirror pack`: turn a mirrored folder into one reproducible .tar.gz bundle.
struct PackCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pack",
        abstract: "Pack a mirrored folder into a gzip-compressed bundle.",
        discussion: """
            The bundle is a POSIX pax .tar.gz (any tar opens it) holding the folder, its manifest \
            and the original bytes of every rewritten file. The same folder always packs to the \
            same bytes; the SHA-256 printed at the end identifies the bundle.

            Examples:
              mirror pack docs -o docs.tar.gz
              mirror pack docs -o docs.tar.gz --level 9
            """
    )

    @Argument(help: ArgumentHelp("The mirrored folder.", valueName: "DIR")) var directory: String
    @Option(name: [.short, .long], help: ArgumentHelp("The bundle to write.", valueName: "FILE.tar.gz")) var output: String
    @Option(help: "gzip level, 1 (fastest) to 9 (smallest).") var level: Int = 6
    @Flag(name: [.short, .long], help: "Print nothing but errors.") var quiet = false
    @Flag(help: "Print the result as JSON.") var json = false

    func validate() throws {
        guard (1...9).contains(level) else { throw ValidationError("--level must be between 1 and 9") }
    }

    func run() async throws {
        try Self.pack(directory, to: output, level: level, quiet: quiet, json: json)
    }

    /// Packs `directory` into `output` and reports it (also used by `crawl --bundle`).
    static func pack(_ directory: String, to output: String, level: Int, quiet: Bool, json: Bool) throws {
        var options = BundlePacker.Options()
        options.level = Int32(level)
        let summary: BundlePacker.Summary
        do {
            summary = try BundlePacker(options: options).pack(folder: directory, to: output)
        } catch let error as BundleError {
            throw CommandFailure(error)
        }
        if json {
            try Output.json(
                PackResult(
                    bundle: output, files: summary.files, contentBytes: summary.contentBytes,
                    bundleBytes: summary.bundleBytes, sha256: summary.sha256))
        } else if !quiet {
            Output.line(
                "packed \(summary.files) files (\(Output.bytes(summary.contentBytes))) into \(output) "
                    + "(\(Output.bytes(summary.bundleBytes))), sha256 \(summary.sha256)")
        }
    }
}

/// What `pack --json` prints.
struct PackResult: Encodable {
    let bundle: String
    let files: Int
    let contentBytes: Int
    let bundleBytes: Int
    let sha256: String
}
