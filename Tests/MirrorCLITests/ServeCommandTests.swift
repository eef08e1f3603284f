import Foundation
import MirrorTestSupport
import Testing

/// `mirror serve` run as a user runs it: it prints the URL to open, logs each request, and
/// stops cleanly on Ctrl-C.
@Suite("mirror serve")
final class ServeCommandTests {
    /// A folder for each test (Swift Testing makes a new instance per test); `deinit` removes it.
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("cli-serve-\(UUID().uuidString)").path

    deinit {
        try? FileManager.default.removeItem(atPath: root)
    }

    @Test(arguments: ["out", "out.tar.gz"])
    func servesAFolderOrABundleLogsRequestsAndStopsOnCtrlC(source: String) async throws {
        try await TestOrigin.with(site: .named("plain")) { origin in
            let crawl = try await MirrorProcess.run([
                "crawl", origin.url("/"), "-o", root + "/out", "--cache", root + "/cache",
                "--bundle", root + "/out.tar.gz",
            ])
            #expect(crawl.status == 0, "\(crawl.stderr)")
            try await origin.shutdown()  // the copy is served without its origin (shutting down again at the end does nothing)
            let server = try ServerProcess("serve", [root + "/" + source], log: root + "/serve.log")
            let url = try await server.waitForURL()
            #expect(url == "http://127.0.0.1:\(server.port)/")
            let page = try await server.get("/blog/post-1.html")
            #expect(page.status == 200)
            #expect(page.header("content-type") == "text/html; charset=utf-8")
            let missing = try await server.get("/nothing.html")
            #expect(missing.status == 404)
            #expect(try await server.interruptAndWait() == 0)
            #expect(server.output.contains("GET /blog/post-1.html 200 \(page.body.count) "), "\(server.output)")
            #expect(server.output.contains("GET /nothing.html 404 "), "\(server.output)")
        }
    }

    /// The copies of a bundle's inflated files are kept in a file with no name in $TMPDIR: a
    /// `kill -9` leaves nothing there.
    @Test func aBundlesInflatedCopiesLeaveNothingBehindAfterKill9() async throws {
        try await TestOrigin.with(site: .named("plain")) { origin in
            let crawl = try await MirrorProcess.run([
                "crawl", origin.url("/"), "-o", root + "/out", "--cache", root + "/cache",
                "--bundle", root + "/out.tar.gz",
            ])
            #expect(crawl.status == 0, "\(crawl.stderr)")
            let scratch = root + "/tmp"
            try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
            var environment = ProcessInfo.processInfo.environment
            environment["TMPDIR"] = scratch
            let server = try ServerProcess("serve", [root + "/out.tar.gz"], log: root + "/serve.log", environment: environment)
            _ = try await server.waitForURL()
            let saved = try Data(
                contentsOf: URL(
                    fileURLWithPath: root + "/out/\(origin.authority.replacingOccurrences(of: ":", with: "_"))/blog/post-1.html"))
            for _ in 0..<3 {
                let page = try await server.get("/blog/post-1.html")
                #expect(page.status == 200 && page.body == Array(saved))
            }
            let descriptors = "/proc/\(server.process.pid)/fd"
            let targets = try FileManager.default.contentsOfDirectory(atPath: descriptors)
                .compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: descriptors + "/" + $0) }
            #expect(targets.contains { $0.hasPrefix(scratch + "/mirror-serve-") && $0.hasSuffix(" (deleted)") }, "\(targets)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: scratch).isEmpty)
            server.process.signal(SIGKILL)
            _ = try await server.process.exit()
            #expect(try FileManager.default.contentsOfDirectory(atPath: scratch).isEmpty)
        }
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
