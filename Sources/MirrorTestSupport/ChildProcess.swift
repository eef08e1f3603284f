public import Foundation
import MirrorCore

/// Runs a program to completion without blocking a thread of the cooperative pool while it
/// runs (a blocked pool starves the in-process origin servers of tests running alongside).
public enum ChildProcess {
    public struct Result: Sendable {
        /// The exit code, or 128 + the signal number when a signal ended it (as a shell says).
        public let status: Int32
        public let stdout: String
        public let stderr: String
    }

    /// - Parameters:
    ///   - environment: variables set for the child on top of this process's environment.
    ///   - timeout: how long the child may run; then it is killed (SIGKILL, status 137), so that
    ///     a child that hangs fails its test instead of holding the whole run.
    public static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:],
        timeout: Duration = .seconds(TestTiming.seconds(300))
    ) async throws -> Result {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("child-out-\(UUID().uuidString)").path
        let err = FileManager.default.temporaryDirectory.appendingPathComponent("child-err-\(UUID().uuidString)").path
        defer {
            unlink(out)
            unlink(err)
        }
        let child = try Subprocess(
            executable.path, arguments,
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
            stdout: .file(out), stderr: .file(err))
        let deadline = ContinuousClock.now + timeout
        while child.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        if child.isRunning { child.signal(SIGKILL) }
        let status: Int32 =
            switch try await child.exit(polling: .milliseconds(10)) {
            case .exited(let code): code
            case .signalled(let number): 128 + number
            }
        return Result(status: status, stdout: try Self.text(of: out), stderr: try Self.text(of: err))
    }

    /// The text of the file at `path`, read with `FileReading`: Foundation's readers leak a page of
    /// memory for each empty file (a child's output often is).
    static func text(of path: String) throws -> String {
        String(decoding: try FileReading.contents(of: path) ?? [], as: UTF8.self)
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
        public init(message: String) { description = message }
    }
}
