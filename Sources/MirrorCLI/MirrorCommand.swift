public import ArgumentParser
import CHeap
import Foundation
import Logging
import MirrorCache
import MirrorCompression
import MirrorHTML
import MirrorSQLite

/// `mirror`: the root command. Subcommands do the work; this type only routes and maps errors to exit codes.
public struct MirrorCommand: AsyncParsableCommand {
    /// The version: the source's (the literal, which `scripts/package` reads), unless the packaging script stamped a tag's.
    public static let version = BuildInfo.stampedVersion ?? "0.1.0"

    public static let configuration = CommandConfiguration(
        commandName: "mirror",
        abstract: "Snapshot web sites for offline use, through a persistent HTTP cache.",
        discussion: """
            Examples:
              mirror crawl https://docs.example.org/ -o docs-mirror --bundle docs.tar.gz
              mirror check docs-mirror
              mirror serve docs.tar.gz --port 8080
              mirror cache stats

            Exit codes:
            \(ExitStatus.allCases.map { "  \($0.rawValue)  \($0.meaning)" }.joined(separator: "\n"))
            """,
        version:
            "mirror \(version) (commit \(BuildInfo.commit); libxml2 \(LibXML2.version), zlib \(Zlib.version), SQLite \(SQLiteDatabase.libraryVersion))",
        subcommands: [
            CrawlCommand.self, CheckCommand.self, PackCommand.self, UnpackCommand.self, ServeCommand.self,
            ProxyCommand.self, CacheCommand.self, ExportCommand.self, SearchCommand.self,
        ]
    )

    public init() {}

    /// Parses `arguments`, runs the command and exits with a documented code.
    public static func runMain(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) async -> Never {
        // glibc raises its mmap and trim thresholds to the size of each large block freed (up
        // to 32 MB): once a crawl's per-URL tables had doubled, every later block below that
        // size stayed with the process after it was freed. They are fixed at their default, 128 KB.
        mirror_fix_heap_thresholds(128 * 1024)
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            terminate(.success)
        } catch let failure as CommandFailure {
            printError("mirror: \(failure.message)")
            terminate(failure.status)
        } catch let error as CacheError {
            printError("mirror: \(error)")
            terminate(ExitStatus(error))
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                // ArgumentParser's usage errors: show its message, exit with our usage code.
                printError(fullMessage(for: error))
                terminate(.usage)
            }
            self.exit(withError: error)
        }
    }

    static func printError(_ message: String) {
        var line = message
        if !line.hasSuffix("\n") { line += "\n" }
        FileHandle.standardError.write(Data(line.utf8))
    }

    private static func terminate(_ status: ExitStatus) -> Never {
        Foundation.exit(status.rawValue)
    }
}
