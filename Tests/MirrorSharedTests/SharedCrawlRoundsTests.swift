import Foundation
import MirrorTestSupport
import Testing

/// `mirror crawl --shared` across a database restart, late workers, new rounds, two crawls in
/// one database, and `--browser`.
extension SharedCrawlTests {
    @Test func aDatabaseRestartMidCrawlIsSurvived() async throws {
        try await withSite(pages: 100) { origin, expected, database in
            // A worker waits 3 leases for the database: 15 s, more than a restart takes on a loaded machine.
            let options = ["--delay", "0.02", "--lease", "5"]
            // The origin holds its answers from a quarter of the site on, so the restart comes mid-crawl
            // however late this task is scheduled; the held fetches end once the database is back.
            origin.holdResponses(after: expected.count / 4)
            async let first = ChildProcess.run(mirror, worker(1, origin, database, options))
            async let second = ChildProcess.run(mirror, worker(2, origin, database, options))
            for _ in 0..<6_000 where origin.requests.count < expected.count / 4 { try await Task.sleep(for: .milliseconds(5)) }
            let before = origin.requests.count
            #expect(before >= expected.count / 4 && before < expected.count / 2, "\(before) requests before the restart")
            let restarting = ContinuousClock.now
            try await database.restart()
            let restart = ContinuousClock.now - restarting
            origin.releaseResponses()
            let after = origin.requests.count
            for result in try await [first, second] { #expect(result.status == 0, "\(result.stderr) (the restart took \(restart))") }
            #expect(origin.requests.count > after, "nothing was fetched after the restart")
            for number in 1...2 { expectFolder(number, is: expected) }
            // A claim whose commit was lost with the connection comes back when its lease ends: at most a batch a worker.
            #expect(repeated(origin) <= 8, "\(repeated(origin)) requests repeated")
        }
    }

    @Test func aLateWorkerOnlyMakesTheFolderAndALaterRunRevalidates() async throws {
        try await withSite(pages: 20) { origin, expected, database in
            let first = try await ChildProcess.run(mirror, worker(1, origin, database))
            #expect(first.status == 0, "\(first.stderr)")
            let fetched = origin.requests.count
            #expect(fetched == expected.count + 1)  // and robots.txt

            // Started within a lease of the end: it fetches nothing and makes the whole folder.
            let late = try await ChildProcess.run(mirror, worker(2, origin, database))
            #expect(late.status == 0, "\(late.stderr)")
            #expect(origin.requests.count == fetched, "the late worker fetched \(origin.requests.count - fetched)")
            expectFolder(2, is: expected)

            // The round ended an hour ago (by the database's clock): the same command is a re-crawl,
            // and what the worker's cache holds is revalidated, not fetched again.
            try await database.sql("UPDATE mirror_crawls SET finished_at = finished_at - 3600")
            origin.clearLog()
            let again = try await ChildProcess.run(mirror, worker(1, origin, database))
            #expect(again.status == 0, "\(again.stderr)")
            let pages = origin.requests.filter { $0.path.hasSuffix(".html") || $0.path == "/" }
            #expect(pages.count == expected.keys.filter { $0.hasSuffix(".html") }.count, "every page asked for again")
            // Every file of the site has an ETag (a redirect has none).
            let files = pages.filter { FileManager.default.fileExists(atPath: root + "/site" + ($0.path == "/" ? "/index.html" : $0.path)) }
            #expect(files.count >= 20)
            let unconditional = files.filter { $0.header("if-none-match") == nil }.map(\.path)
            #expect(unconditional.isEmpty, "pages fetched again without their ETag: \(unconditional)")
            let rounds = try await database.sql("SELECT round FROM mirror_crawls WHERE name = 'test'")
            #expect(rounds.trimmingCharacters(in: .whitespacesAndNewlines) == "2")
            expectFolder(1, is: expected)
        }
    }

    @Test func twoCrawlsInOneDatabaseNeverSeeEachOther() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let first = try await TestOrigin.start(site: FixtureSite(root: try GeneratedSite.write(pages: 40, to: root + "/a")))
        let second = try await TestOrigin.start(site: FixtureSite(root: try GeneratedSite.write(pages: 60, to: root + "/b")))
        let expectedA = try await reference(first, name: "ref-a")
        let expectedB = try await reference(second, name: "ref-b")
        first.clearLog()
        second.clearLog()
        try await TestPostgres.with { database in
            async let a1 = ChildProcess.run(mirror, worker(1, first, database, name: "a"))
            async let a2 = ChildProcess.run(mirror, worker(2, first, database, name: "a"))
            async let b1 = ChildProcess.run(mirror, worker(3, second, database, name: "b"))
            async let b2 = ChildProcess.run(mirror, worker(4, second, database, name: "b"))
            for result in try await [a1, a2, b1, b2] { #expect(result.status == 0, "\(result.stderr)") }
            for number in 1...2 { expectFolder(number, is: expectedA) }
            for number in 3...4 { expectFolder(number, is: expectedB) }
            #expect(repeated(first) == 0 && repeated(second) == 0)
            for (name, origin) in [("a", first), ("b", second)] {
                let status = try await ChildProcess.run(
                    mirror, ["crawl", origin.url("/"), "--shared", database.url, "--crawl-name", name, "--status"])
                let done = Set(origin.requests.map(\.path)).count - 1  // every URL but robots.txt
                #expect(status.stdout.contains("queued 0, claimed 0, done \(done),"), "\(name): \(status.stdout)")
                #expect(status.stdout.components(separatedBy: "  worker ").count == 3, "\(name): \(status.stdout)")
            }
            // The planner never learns one crawl's id: it would take the next crawl for a row or two.
            try await database.sql("ANALYZE")
            let crawlStatistics = try await database.sql(
                "SELECT count(*) FROM pg_stats WHERE tablename LIKE 'mirror%' AND attname = 'crawl'")
            let columns = try await database.sql("SELECT count(*) FROM pg_stats WHERE tablename = 'mirror_urls' AND attname = 'url'")
            #expect(
                crawlStatistics.trimmingCharacters(in: .whitespacesAndNewlines) == "0",
                "statistics of the crawl columns: \(crawlStatistics)")
            #expect(columns.trimmingCharacters(in: .whitespacesAndNewlines) == "1", "ANALYZE gathered no statistics at all")
        }
        try await first.shutdown()
        try await second.shutdown()
    }

    @Test func workersWithBrowsersMakeTheSameRenderedFolder() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let origin = try await TestOrigin.start(site: .named("scripted"))
        let expected = try await reference(origin, ["--browser"])
        // Found only by running the pages' scripts.
        for file in ["built.html", "data/items.json", "img/late-bg.png", "items/one.html"] {
            #expect(expected.keys.contains { $0.hasSuffix("/" + file) }, "the reference lacks \(file)")
        }
        origin.clearLog()
        try await TestPostgres.with { database in
            async let first = ChildProcess.run(mirror, worker(1, origin, database, ["--browser"]))
            async let second = ChildProcess.run(mirror, worker(2, origin, database, ["--browser"]))
            for result in try await [first, second] { #expect(result.status == 0, "\(result.stderr)") }
            let folders = (1...2).map { FolderContents.files("\(root)/w\($0)", excluding: [".mirror/"]) }
            #expect(folders[0] == folders[1], "the two workers' folders differ")
            #expect(Set(folders[0].keys) == Set(expected.keys))
            #expect(repeated(origin) == 0, "\(repeated(origin)) requests repeated: \(origin.requests.map(\.path))")
        }
        try await origin.shutdown()
    }
}
