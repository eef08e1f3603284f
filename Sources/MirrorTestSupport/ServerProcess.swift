public import Foundation

/// A running `mirror serve` or `mirror proxy` (the built executable), its output going to a file.
public final class ServerProcess {
    public let process: Subprocess
    public let log: String
    public private(set) var port = 0

    public init(
        _ command: String, _ arguments: [String], log: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        self.log = log
        process = try Subprocess(
            BuiltProducts.executable("mirror").path, [command] + arguments + ["--port", "0"],
            environment: environment, stdout: .file(log), stderr: .sameAsOutput)
    }

    public var output: String { (try? ChildProcess.text(of: log)) ?? "" }

    /// Waits for the line that ends with the URL to use and reads the port from it.
    public func waitForURL() async throws -> String {
        for _ in 0..<1200 where process.isRunning {
            if let line = output.split(separator: "\n").first(where: { $0.hasSuffix("(Ctrl-C to stop)") }),
                let url = line.split(separator: " ").last(where: { $0.hasPrefix("http://") })
            {
                port = Int(url.split(separator: ":").last!.dropLast()) ?? 0
                return String(url)
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw RawHTTPConnection.Failure("no URL printed: \(output)")
    }

    /// Sends `GET target` with the given extra header lines and reads the response.
    public func get(_ target: String, headers: [String] = []) async throws -> RawHTTPResponse {
        try await Self.get(target, port: port, headers: headers)
    }

    /// Sends `GET target` to the server on `port` with the given extra header lines and reads the response.
    public static func get(_ target: String, port: Int, headers: [String] = []) async throws -> RawHTTPResponse {
        let head = (["GET \(target) HTTP/1.1", "Host: 127.0.0.1:\(port)", "Connection: close"] + headers).joined(separator: "\r\n")
        return try await RawHTTPConnection.run {
            let connection = try RawHTTPConnection(port: port)
            try connection.send(head + "\r\n\r\n")
            return try connection.readResponse()
        }
    }

    public func interruptAndWait() async throws -> Int32 {
        process.signal(SIGINT)
        for _ in 0..<1200 where process.isRunning { try await Task.sleep(for: .milliseconds(50)) }
        process.signal(SIGKILL)
        return switch try await process.exit() {
        case .exited(let code): code
        case .signalled(let number): 128 + number
        }
    }
}
