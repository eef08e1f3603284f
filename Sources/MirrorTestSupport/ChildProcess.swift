public import Foundation

/// Runs a program to completion without blocking a thread of the cooperative pool while it
/// runs (a blocked pool starves the in-process origin servers of tests running alongside).
public enum ChildProcess {
    public struct Result: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String
    }

    /// - Parameter environment: variables set for the child on top of this process's environment.
    public static func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) async throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("child-out-\(UUID().uuidString)")
        let err = FileManager.default.temporaryDirectory.appendingPathComponent("child-err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: out); try? FileManager.default.removeItem(at: err) }
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        while process.isRunning { try await Task.sleep(for: .milliseconds(10)) }
        return Result(status: process.terminationStatus, stdout: try String(contentsOf: out, encoding: .utf8),
                      stderr: try String(contentsOf: err, encoding: .utf8))
    }

    /// Runs `tool` and returns its standard output; throws when it is missing or exits non-zero.
    public static func output(_ tool: String, _ arguments: [String]) async throws -> String {
        guard FileManager.default.isExecutableFile(atPath: tool) else {
            throw Failure(message: "\(tool) is missing: scripts/setup installs what the tests need")
        }
        let result = try await run(URL(fileURLWithPath: tool), arguments)
        guard result.status == 0 else { throw Failure(message: "\(tool) \(arguments) exited \(result.status): \(result.stderr)") }
        return result.stdout
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(message: String) { description = message }
    }
}
