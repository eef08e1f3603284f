import Crypto
import Foundation
import MirrorCore
import MirrorCrawl
import MirrorCrawlTesting
import MirrorLock
import MirrorSearch
import MirrorSite
import MirrorTestSupport
import Testing

/// The index of a crawled folder: ranking, snippets, updates after a re-crawl, and `mirror search`.
@Suite("Searching a mirrored folder")
struct SearchIndexTests {
    /// Which text `/walk.html` has.
    final class Version: Sendable {
        let number = Locked(1)
    }

    /// A small documentation site; `/walk.html`'s text changes with `version`.
    static func origin(version: Version) async throws -> TestOrigin {
        let origin = try await TestOrigin.start()
        origin.route("/") { _ in
            .html(
                """
                <title>Home</title><nav><a href="walk.html">walk</a> <a href="paths.html">paths</a> <a href="tree.html">tree</a></nav>
                <p>Welcome to the manual.</p>
                """)
        }
        origin.route("/walk.html") { _ in
            let words = version.number.withLock { $0 } == 1 ? "apple orchard" : "banana grove"
            return .html(
                "<title>os.walk — directory trees</title><h1>Walking a tree</h1><p>Generate the file names in a tree: \(words).</p>")
        }
        origin.route("/paths.html") { _ in
            .html("<title>Paths</title><h1>Path names</h1><p>Joining names; see also walking a directory once in a while.</p>")
        }
        origin.route("/tree.html") { _ in
            .html(
                "<title>Trees</title><p>A tree of files. Caf&eacute; &amp; r&eacute;sum&eacute;. Walk, walk, walk through the walk of walks.</p>"
            )
        }
        return origin
    }

    @Test func titleHitsRankFirstAndARecrawlUpdatesOnlyWhatChanged() async throws {
        let version = Version()
        let origin = try await Self.origin(version: version)
        try await CrawlHarness.with { harness in
            _ = try await harness.crawl([origin.url("/")])
            let folder = harness.root + "/out"
            var index = try SearchIndex.open(folder: folder)
            #expect(try index.pageCount() == 4)
            // In a title beats many times in the text.
            let walk = try index.search(SearchQuery("walk*"))
            #expect(walk.first?.url == origin.url("/walk.html"), "\(walk.map(\.url))")
            #expect(walk.map(\.url).contains(origin.url("/tree.html")))
            #expect(try index.search(SearchQuery("os.walk")).map(\.url) == [origin.url("/walk.html")])
            #expect(try index.search(SearchQuery("apple")).first?.snippet(open: "[", close: "]").contains("[apple] orchard") == true)
            #expect(try index.search(SearchQuery("cafe resume")).map(\.url) == [origin.url("/tree.html")], "diacritics fold")
            #expect(try index.search(SearchQuery("welcome NOT manual")).isEmpty)
            #expect(try index.search(SearchQuery("\"names in a tree\"")).map(\.url) == [origin.url("/walk.html")])

            version.number.withLock { $0 = 2 }
            _ = try await harness.crawl([origin.url("/")], mode: .refresh)
            index = try SearchIndex.open(folder: folder)
            #expect(try index.pageCount() == 4)
            #expect(try index.search(SearchQuery("apple")).isEmpty)
            #expect(try index.search(SearchQuery("banana")).map(\.url) == [origin.url("/walk.html")])
            try await origin.shutdown()
        }
    }

    @Test func aCrawlMakesTheSameIndexAsTheFilesGiveAndTheManifestListsIt() async throws {
        let origin = try await Self.origin(version: Version())
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("search-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let mirror = BuiltProducts.executable("mirror")
        for (name, extra) in [("first", []), ("second", ["--concurrency", "1"]), ("plain", ["--no-index"])] {
            let crawl = try await ChildProcess.run(
                mirror, ["crawl", origin.url("/"), "-o", "\(root)/\(name)", "--cache", "\(root)/cache-\(name)"] + extra)
            #expect(crawl.status == 0, "\(crawl.stderr)")
        }
        try await origin.shutdown()
        let made = try Data(contentsOf: URL(fileURLWithPath: root + "/first/" + SearchIndex.path))
        #expect(!FileManager.default.fileExists(atPath: root + "/plain/" + SearchIndex.path))
        #expect(try SearchIndex.open(folder: root + "/first").pageCount() == 4)
        // The same pages give the same bytes, whatever order the crawl read them in, and read from the files.
        #expect(try Data(contentsOf: URL(fileURLWithPath: root + "/second/" + SearchIndex.path)) == made)
        try FileManager.default.removeItem(atPath: root + "/first/" + SearchIndex.path)
        #expect(try SearchIndex.open(folder: root + "/first").search(SearchQuery("orchard")).count == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: root + "/first/" + SearchIndex.path)) == made)
        _ = try SearchIndex.open(folder: root + "/plain")
        #expect(try Data(contentsOf: URL(fileURLWithPath: root + "/plain/" + SearchIndex.path)) == made)
        // The manifest lists it (so a bundle holds it); the words' places are kept, not the text.
        let manifest = try SiteManifest.decode(Array(try Data(contentsOf: URL(fileURLWithPath: root + "/first/" + SiteManifest.path))))
        #expect(manifest.search?.size == made.count)
        #expect(manifest.search?.sha256 == Hex.string(SHA256.hash(data: made)), "the digest of the index made beside it")
        #expect(made.range(of: Data("Generate the file names".utf8)) == nil)
    }

    /// More pages than the index reads at once (titles in runs, texts in groups, each group's
    /// found while the one before goes in): every page's words and title stay its own.
    @Test func aSiteOfManyPagesIsIndexedPageByPage() async throws {
        let origin = try await TestOrigin.start()
        let count = 150
        origin.route("/") { _ in
            .html("<title>Contents</title>" + (0..<count).map { "<a href=\"p/\($0).html\">\($0)</a>" }.joined())
        }
        for number in 0..<count {
            origin.route("/p/\(number).html") { _ in
                .html("<title>Chapter \(number) — The Handbook</title><h1>Part \(number)</h1><p>Only here: token\(number).</p>")
            }
        }
        try await CrawlHarness.with { harness in
            _ = try await harness.crawl([origin.url("/")])
            try await origin.shutdown()
            let folder = harness.root + "/out"
            let made = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + SearchIndex.path))
            var index = try SearchIndex.open(folder: folder)
            #expect(try index.pageCount() == count + 1)
            for number in 0..<count {
                let found = try index.search(SearchQuery("token\(number)"))
                #expect(found.map(\.url) == [origin.url("/p/\(number).html")], "token\(number)")
                #expect(found.first?.title == "Chapter \(number) — The Handbook")
            }
            // The part every title shares names the site, and is left out of what is searched.
            #expect(try index.search(SearchQuery("handbook")).isEmpty)
            // Read from the files instead of the crawl's texts: the same bytes.
            try FileManager.default.removeItem(atPath: folder + "/" + SearchIndex.path)
            index = try SearchIndex.open(folder: folder)
            #expect(try index.pageCount() == count + 1)
            #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + SearchIndex.path)) == made)
        }
    }

    @Test func aBundleIsSearchedWithTheIndexItHoldsOrOneMadeOnFirstUse() async throws {
        let origin = try await Self.origin(version: Version())
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("search-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let mirror = BuiltProducts.executable("mirror")
        for (name, extra) in [("indexed", []), ("plain", ["--no-index"])] {
            let crawl = try await ChildProcess.run(
                mirror,
                [
                    "crawl", origin.url("/"), "-o", "\(root)/\(name)", "--cache", root + "/cache",
                    "--bundle", "\(root)/\(name).tar.gz",
                ] + extra)
            #expect(crawl.status == 0, "\(crawl.stderr)")
        }
        try await origin.shutdown()
        let inFolder = try await ChildProcess.run(mirror, ["search", root + "/indexed", "walk*", "--json"])
        #expect(inFolder.status == 0 && inFolder.stdout.contains("<mark>"), "\(inFolder.stderr)")
        for bundle in ["indexed", "plain"] {
            let inBundle = try await ChildProcess.run(mirror, ["search", "\(root)/\(bundle).tar.gz", "walk*", "--json"])
            #expect(inBundle.status == 0, "\(inBundle.stderr)")
            #expect(inBundle.stdout == inFolder.stdout, "\(bundle): \(inBundle.stdout)")
        }
        let unpack = try await ChildProcess.run(mirror, ["unpack", root + "/indexed.tar.gz", "-o", root + "/unpacked"])
        #expect(unpack.status == 0, "\(unpack.stderr)")
        #expect(
            FileManager.default.contents(atPath: root + "/unpacked/" + SearchIndex.path)
                == FileManager.default.contents(atPath: root + "/indexed/" + SearchIndex.path))
        let unpacked = try await ChildProcess.run(mirror, ["search", root + "/unpacked", "walk*", "--json"])
        #expect(unpacked.stdout == inFolder.stdout)

        // The search page of a served bundle.
        let server = try ServerProcess("serve", [root + "/indexed.tar.gz"], log: root + "/serve.log")
        defer { server.process.signal(SIGKILL) }
        _ = try await server.waitForURL()
        let page = try await server.get("/_/search?q=orchard")
        #expect(
            page.status == 200 && String(decoding: page.body, as: UTF8.self).contains("<a href=\"/walk.html\">"),
            "\(String(decoding: page.body, as: UTF8.self))")
    }

    @Test func theCommandPrintsResultsAndSaysWhatIsWrong() async throws {
        let origin = try await Self.origin(version: Version())
        try await CrawlHarness.with { harness in
            _ = try await harness.crawl([origin.url("/")])
            try await origin.shutdown()
            let mirror = BuiltProducts.executable("mirror")
            let folder = harness.root + "/out"

            let found = try await ChildProcess.run(mirror, ["search", folder, "walk*", "--limit", "2"])
            #expect(found.status == 0, "\(found.stderr)")
            #expect(
                found.stdout.hasPrefix(
                    "1. os.walk — directory trees\n   \(origin.host)_\(origin.port)/walk.html  (\(origin.url("/walk.html")))"),
                "\(found.stdout)")
            #expect(found.stdout.contains("2. ") && !found.stdout.contains("3. "))

            let json = try await ChildProcess.run(mirror, ["search", folder, "orchard OR <script>", "--json"])
            #expect(json.status == 0, "\(json.stderr)")
            let results = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
            #expect(
                results?.count == 1 && (results?.first?["snippet"] as? String)?.contains("<mark>orchard</mark>") == true,
                "\(json.stdout)")

            let none = try await ChildProcess.run(mirror, ["search", folder, "zebra"])
            #expect(none.status == 0 && none.stdout.contains("no page matches zebra"))
            let malformed = try await ChildProcess.run(mirror, ["search", folder, "walk OR"])
            #expect(malformed.status == 2 && malformed.stderr.contains("OR needs words on both sides"), "\(malformed.stderr)")
            let missing = try await ChildProcess.run(mirror, ["search", harness.root + "/nothing", "walk"])
            #expect(missing.status == 3, "\(missing.stderr)")
            let notMirror = try await ChildProcess.run(mirror, ["search", harness.root, "walk"])
            #expect(notMirror.status == 3 && notMirror.stderr.contains("not a mirrored folder"), "\(notMirror.stderr)")
        }
    }
}
