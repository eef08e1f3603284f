import Foundation
import MirrorTestSupport
import Testing

/// `mirror crawl --shared`: real worker processes against a PostgreSQL server the test starts
/// and the in-process origin, compared with a crawl of one process.
@Suite("one crawl, several workers", .serialized)
struct SharedCrawlTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("shared-\(UUID().uuidString)").path
    let mirror = BuiltProducts.executable("mirror")

    /// A crawl of one process of `origin` into `root/reference`: the folder every worker must make.
    func reference(_ origin: TestOrigin, _ extra: [String] = [], name: String = "reference") async throws -> [String: Data] {
        let result = try await ChildProcess.run(
            mirror,
            [
                "crawl", origin.url("/"), "-o", root + "/" + name, "--cache", root + "/\(name)-cache",
                "--report", root + "/\(name).json",
            ] + extra)
        try #require(result.status == 0, "\(result.stderr)")
        return FolderContents.files(root + "/" + name, excluding: [".mirror/"])
    }

    func worker(_ number: Int, _ origin: TestOrigin, _ database: TestPostgres, _ extra: [String] = [], name: String = "test") -> [String] {
        [
            "crawl", origin.url("/"), "--shared", database.url, "--crawl-name", name, "-o", "\(root)/w\(number)",
            "--cache", "\(root)/c\(number)", "--concurrency", "4", "--quiet",
        ] + extra
    }

    /// Runs `body` with a generated site of `pages` pages on the test origin, the folder a crawl
    /// of one process makes of it (the origin's log emptied after it) and a PostgreSQL server of
    /// its own; the origin, the server and the scratch folder end with it.
    func withSite(pages: Int, _ body: (TestOrigin, _ expected: [String: Data], TestPostgres) async throws -> Void) async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let origin = try await TestOrigin.start(site: FixtureSite(root: try GeneratedSite.write(pages: pages, to: root + "/site")))
        do {
            let expected = try await reference(origin)
            origin.clearLog()
            try await TestPostgres.with { database in try await body(origin, expected, database) }
        } catch {
            try? await origin.shutdown()
            throw error
        }
        try await origin.shutdown()
    }

    /// Whether worker `number`'s folder holds what `expected` holds, outside `.mirror/`.
    func expectFolder(_ number: Int, is expected: [String: Data], sourceLocation: SourceLocation = #_sourceLocation) {
        let folder = FolderContents.files("\(root)/w\(number)", excluding: [".mirror/"])
        #expect(Set(folder.keys) == Set(expected.keys), "worker \(number)", sourceLocation: sourceLocation)
        #expect(folder.filter { expected[$0.key] != $0.value }.isEmpty, "worker \(number): files differ", sourceLocation: sourceLocation)
    }

    /// How many requests the origin received for a path it had already been asked for.
    func repeated(_ origin: TestOrigin) -> Int {
        let paths = origin.requests.map(\.path)
        return paths.count - Set(paths).count
    }

    @Test func threeWorkersFetchEachURLOnceAndEachMakesTheWholeFolder() async throws {
        try await withSite(pages: 150) { origin, expected, database in
            #expect(expected.count > 150)
            async let first = ChildProcess.run(mirror, worker(1, origin, database, ["--report", root + "/r1.json"]))
            async let second = ChildProcess.run(mirror, worker(2, origin, database))
            async let third = ChildProcess.run(mirror, worker(3, origin, database))
            for result in try await [first, second, third] { #expect(result.status == 0, "\(result.stderr)") }
            for number in 1...3 { expectFolder(number, is: expected) }
            let paths = origin.requests.map(\.path)
            #expect(repeated(origin) == 0, "\(repeated(origin)) requests repeated")
            #expect(Set(paths).count == expected.count + 1)  // and robots.txt
            let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: root + "/r1.json"))) as? [String: Any]
            let one =
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: root + "/reference.json"))) as? [String: Any]
            #expect(report?["fetched"] as? Int == one?["fetched"] as? Int, "the report counts every worker's files")
            #expect(report?["pages"] as? Int == one?["pages"] as? Int)

            let status = try await ChildProcess.run(
                mirror, ["crawl", origin.url("/"), "--shared", database.url, "--crawl-name", "test", "--status"])
            #expect(status.status == 0)
            #expect(status.stdout.contains("queued 0, claimed 0, done \(Set(paths).count - 1)"), "\(status.stdout)")
            #expect(status.stdout.contains("repeated claims 0"), "\(status.stdout)")
            #expect(status.stdout.components(separatedBy: "  worker ").count == 4, "\(status.stdout)")

            // Each worker's cache holds the whole crawl, robots.txt included: an offline crawl of
            // any of them makes the folder again without a request.
            origin.clearLog()
            for number in 1...3 {
                let offline = try await ChildProcess.run(
                    mirror,
                    [
                        "crawl", origin.url("/"), "--offline", "-o", "\(root)/offline\(number)",
                        "--cache", "\(root)/c\(number)", "--quiet",
                    ])
                #expect(offline.status == 0, "worker \(number): \(offline.stderr)")
                #expect(FolderContents.files("\(root)/offline\(number)", excluding: [".mirror/"]) == expected, "worker \(number)'s cache")
            }
            #expect(origin.requests.isEmpty, "\(origin.requests.map(\.path))")
        }
    }

    @Test func aWorkerKilledMidCrawlLosesNothingAndPolitenessHoldsAcrossWorkers() async throws {
        try await withSite(pages: 100) { origin, expected, database in
            let delay = 0.03
            let polite = ["--delay", String(delay), "--lease", "3"]
            let log = root + "/killed.log"
            let victim = try Subprocess(mirror.path, worker(3, origin, database, polite + ["--verbose"]), stderr: .file(log))
            async let first = ChildProcess.run(mirror, worker(1, origin, database, polite))
            async let second = ChildProcess.run(mirror, worker(2, origin, database, polite))
            var killed = false
            while victim.isRunning {
                let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                if text.components(separatedBy: "mirror: GET ").count > 10 {
                    victim.signal(SIGKILL)
                    killed = try await victim.exit() == .signalled(SIGKILL)
                    break
                }
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(killed, "the worker ended before it was killed")
            for result in try await [first, second] { #expect(result.status == 0, "\(result.stderr)") }
            for number in 1...2 { expectFolder(number, is: expected) }
            // Only what the killed worker had in flight is fetched again: one request at a time with a delay.
            #expect(repeated(origin) <= 1, "\(repeated(origin)) requests repeated")
            let times = origin.requests.map(\.time).sorted()
            let gaps = zip(times.dropFirst(), times).map { $0.timeIntervalSince($1) }
            #expect(gaps.min() ?? 0 >= delay * 0.95, "two requests \(gaps.min() ?? 0) s apart, --delay \(delay)")
        }
    }

    @Test func aWorkerWithOtherOptionsIsRefusedAndALostDatabaseEndsTheCrawl() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let site = try GeneratedSite.write(pages: 10, to: root + "/site")
        let origin = try await TestOrigin.start(site: FixtureSite(root: site))
        try await TestPostgres.with { database in
            let first = try await ChildProcess.run(mirror, worker(1, origin, database))
            #expect(first.status == 0, "\(first.stderr)")
            let other = try await ChildProcess.run(mirror, worker(2, origin, database, ["--per-host", "2"]))
            #expect(other.status == 2)
            #expect(other.stderr.contains("--per-host 4") && other.stderr.contains("given 2"), "\(other.stderr)")
            #expect(!FileManager.default.fileExists(atPath: root + "/w2"))
        }
        let unreachable = try await ChildProcess.run(
            mirror,
            [
                "crawl", origin.url("/"), "--shared", "postgres://mirror@127.0.0.1:9/postgres", "--lease", "3", "--quiet",
            ])
        #expect(unreachable.status == 13)
        #expect(unreachable.stderr.contains("cannot be reached"), "\(unreachable.stderr)")
        #expect(origin.requests.filter { $0.path == "/" }.count == 1, "the lost worker fetched nothing")
        try await origin.shutdown()
    }
}
