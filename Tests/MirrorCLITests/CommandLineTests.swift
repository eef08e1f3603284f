import Foundation
import MirrorTestSupport
import Testing

/// Runs the built `mirror` executable, as users and scripts do.
struct MirrorProcess {
    static let executable = BuiltProducts.executable("mirror")

    static func run(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        let result = try await ChildProcess.run(executable, arguments)
        return (result.status, result.stdout, result.stderr)
    }
}

@Suite("The mirror command line")
struct CommandLineTests {
    @Test func helpListsEveryCommandAndExitCode() async throws {
        let result = try await MirrorProcess.run(["--help"])
        #expect(result.status == 0)
        for command in ["crawl", "check", "pack", "unpack", "serve", "proxy", "cache", "export"] {
            #expect(result.stdout.contains("  \(command)"), "help does not list \(command)")
        }
        #expect(result.stdout.contains("Exit codes"))
        #expect(result.stdout.contains("Examples"))
    }

    @Test func versionIsPrinted() async throws {
        let result = try await MirrorProcess.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("mirror "))
        for library in ["libxml2 2.", "zlib 1.", "SQLite 3."] {
            #expect(result.stdout.contains(library), "--version does not name \(library)")
        }
    }

    @Test(arguments: [
        ["crawl", "--help"], ["check", "--help"], ["cache", "--help"], ["unpack", "--help"], ["export", "--help"],
        ["cache", "import", "--help"],
    ])
    func subcommandHelpShowsExamples(arguments: [String]) async throws {
        let result = try await MirrorProcess.run(arguments)
        #expect(result.status == 0)
        #expect(result.stdout.contains("Example"))
    }

    /// Help examples print one command per line on an 80-column terminal (none wraps mid-command).
    @Test(arguments: [[], ["crawl"], ["check"], ["pack"], ["unpack"], ["serve"], ["proxy"], ["cache"], ["export"]])
    func helpExamplesFitOnALine(command: [String]) async throws {
        let result = try await ChildProcess.run(MirrorProcess.executable, command + ["--help"], environment: ["COLUMNS": "80"])
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex { $0.hasPrefix("Examples") }, "\(command): no examples")
        let examples = lines[(start + 1)...].prefix { !$0.isEmpty }
        #expect(!examples.isEmpty)
        for line in examples { #expect(line.hasPrefix("  mirror "), "\(command): a wrapped example line: \(line)") }
    }

    @Test func usageErrorsExitWithTwo() async throws {
        let unknown = try await MirrorProcess.run(["crawl", "--no-such-option", "http://127.0.0.1/"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("no-such-option"))
        let missing = try await MirrorProcess.run(["pack"])
        #expect(missing.status == 2)
        let badValue = try await MirrorProcess.run(["crawl", "--depth", "deep", "http://127.0.0.1/"])
        #expect(badValue.status == 2)
    }
}
