import Foundation
import MirrorTestSupport
import Testing

/// `mirror serve` run as a user runs it: it prints the URL to open, logs each request, and
/// stops cleanly on Ctrl-C.
@Suite("mirror serve")
struct ServeCommandTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("cli-serve-\(UUID().uuidString)").path

    /// A running `mirror serve`, its output going to a file.
    final class Server {
        let process = Process()
        let log: String
        private(set) var port = 0

        init(_ arguments: [String], log: String) throws {
            self.log = log
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            process.executableURL = MirrorProcess.executable
            process.arguments = ["serve"] + arguments + ["--port", "0"]
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
            process.standardError = process.standardOutput
            try process.run()
        }

        var output: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

        /// Waits for the line with the URL and reads the port from it.
        func waitForURL() async throws -> String {
            for _ in 0..<1200 where process.isRunning {
                if let line = output.split(separator: "\n").first(where: { $0.hasPrefix("serving ") }),
                   let url = line.split(separator: " ").first(where: { $0.hasPrefix("http://") }) {
                    port = Int(url.split(separator: ":").last!.dropLast()) ?? 0
                    return String(url)
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            throw RawHTTPConnection.Failure("no URL printed: \(output)")
        }

        func interruptAndWait() async throws -> Int32 {
            kill(process.processIdentifier, SIGINT)
            for _ in 0..<1200 where process.isRunning { try await Task.sleep(for: .milliseconds(50)) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    func get(_ target: String, port: Int) async throws -> RawHTTPResponse {
        try await RawHTTPConnection.run {
            let connection = try RawHTTPConnection(port: port)
            try connection.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
            return try connection.readResponse()
        }
    }

    @Test(arguments: ["out", "out.tar.gz"])
    func servesAFolderOrABundleLogsRequestsAndStopsOnCtrlC(source: String) async throws {
        let origin = try await TestOrigin.start(site: .named("plain"))
        defer { Task { try await origin.shutdown() } }
        let crawl = try await MirrorProcess.run(["crawl", origin.url("/"), "-o", root + "/out", "--cache", root + "/cache",
                                                 "--bundle", root + "/out.tar.gz"])
        #expect(crawl.status == 0, "\(crawl.stderr)")
        try await origin.shutdown()
        let server = try Server([root + "/" + source], log: root + "/serve.log")
        let url = try await server.waitForURL()
        #expect(url == "http://127.0.0.1:\(server.port)/")
        let page = try await get("/blog/post-1.html", port: server.port)
        #expect(page.status == 200)
        #expect(page.header("content-type") == "text/html; charset=utf-8")
        let missing = try await get("/nothing.html", port: server.port)
        #expect(missing.status == 404)
        #expect(try await server.interruptAndWait() == 0)
        #expect(server.output.contains("GET /blog/post-1.html 200 \(page.body.count) "), "\(server.output)")
        #expect(server.output.contains("GET /nothing.html 404 "), "\(server.output)")
    }

    @Test func sourcesThatCannotBeServedSayWhy() async throws {
        let missing = try await MirrorProcess.run(["serve", root + "/nowhere"])
        #expect(missing.status == 3)
        #expect(missing.stderr.contains("no such folder or bundle"), "\(missing.stderr)")
        try FileManager.default.createDirectory(atPath: root + "/empty", withIntermediateDirectories: true)
        let empty = try await MirrorProcess.run(["serve", root + "/empty"])
        #expect(empty.status == 3)
        #expect(empty.stderr.contains("not a mirrored folder"), "\(empty.stderr)")
        try "not gzip".write(toFile: root + "/fake.tar.gz", atomically: true, encoding: .utf8)
        let fake = try await MirrorProcess.run(["serve", root + "/fake.tar.gz"])
        #expect(fake.status == 10, "\(fake.stderr)")
        let port = try await MirrorProcess.run(["serve", root + "/empty", "--port", "70000"])
        #expect(port.status == 2)
    }
}
