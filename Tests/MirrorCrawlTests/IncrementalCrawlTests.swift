import Foundation
import MirrorCrawl
import MirrorCrawlTesting
import MirrorSite
import MirrorTestSupport
import Synchronization
import Testing

/// Re-crawling into the folder of an earlier crawl: unchanged files are not written again, and
/// the folder always ends up as a fresh crawl of the same site would be.
@Suite("Incremental re-crawls", .serialized)
final class IncrementalCrawlTests {
    /// A harness for each test (Swift Testing makes a new instance per test); `deinit` removes its folder.
    let harness = CrawlHarness()

    deinit {
        harness.remove()
    }

    func modificationDates(_ name: String) throws -> [String: Date] {
        var dates: [String: Date] = [:]
        for resource in try harness.manifest(name).resources.values {
            let attributes = try FileManager.default.attributesOfItem(atPath: harness.root + "/" + name + "/" + resource.path)
            dates[resource.path] = attributes[.modificationDate] as? Date
        }
        return dates
    }

    @Test func anUnchangedSiteIsNotWrittenAgain() async throws {
        try await TestOrigin.with(site: .named("links")) { origin in
            _ = try await harness.crawl([origin.url("/")])
            let manifest = try harness.manifest()
            // Dated in the past: a file written again shows a new date, whatever the file system's time resolution.
            for resource in manifest.resources.values {
                try FileManager.default.setAttributes(
                    [.modificationDate: Date(timeIntervalSince1970: 1_000_000_000)],
                    ofItemAtPath: harness.root + "/out/" + resource.path)
            }
            let before = try modificationDates("out")
            let again = try await harness.crawl([origin.url("/")], mode: .offline)
            #expect(again.fetched == manifest.resources.count)
            #expect(try modificationDates("out") == before, "unchanged files were written again")
            #expect(try harness.manifest() == manifest)
        }
    }

    @Test func aNewPageRewritesTheLinksToIt() async throws {
        try await TestOrigin.with { origin in
            let linksToNew = Atomic<Bool>(false)
            origin.route("/") { _ in
                .html("<a href='/a.html'>a</a> <a href='/new.html'>new</a>", headers: [("Cache-Control", "no-cache")])
            }
            origin.route("/a.html") { _ in .html("<a href='/new.html'>new</a> <a href='/'>home</a>", headers: [("ETag", "\"a\"")]) }
            origin.route("/new.html") { _ in
                linksToNew.load(ordering: .relaxed) ? .html("<p>new</p>") : .status(404)
            }
            _ = try await harness.crawl([origin.url("/")]) { $0.retries = 0 }
            let a = try #require(try harness.manifest().resources[origin.url("/a.html")])
            let first = try String(contentsOfFile: harness.root + "/out/" + a.path, encoding: .utf8)
            #expect(first.contains("href='\(origin.url("/new.html"))'"), "a link to a page not saved stays absolute")

            linksToNew.store(true, ordering: .relaxed)
            _ = try await harness.crawl([origin.url("/")], mode: .refresh)
            _ = try await harness.crawl([origin.url("/")], output: "fresh", mode: .offline)
            let updated = try String(contentsOfFile: harness.root + "/out/" + a.path, encoding: .utf8)
            #expect(updated.contains("href='new.html'"), "the unchanged page still points at the old absolute URL")
            #expect(try harness.manifest().resources[origin.url("/a.html")]?.sha256 == a.sha256)
            #expect(
                FolderContents.files(harness.root + "/out", excluding: [".mirror/journal", ".mirror/tmp", ".mirror/manifest"])
                    == FolderContents.files(harness.root + "/fresh", excluding: [".mirror/journal", ".mirror/tmp", ".mirror/manifest"]))
        }
    }

    /// A new page changes the folder's set of link targets, but only the pages that link to it
    /// get a new file: the others keep theirs (same inode), as a backup of the folder would want.
    @Test func aNewPageReplacesOnlyTheFilesWhoseLinksChange() async throws {
        try await TestOrigin.with { origin in
            let newPageExists = Atomic<Bool>(false)
            origin.route("/") { _ in
                .html("<a href='/a.html'>a</a> <a href='/b.html'>b</a> <a href='/new.html'>new</a>", headers: [("ETag", "\"r\"")])
            }
            origin.route("/a.html") { _ in .html("<a href='/new.html'>new</a> <a href='/'>home</a>", headers: [("ETag", "\"a\"")]) }
            origin.route("/b.html") { _ in .html("<a href='/a.html'>a</a> <a href='/'>home</a>", headers: [("ETag", "\"b\"")]) }
            origin.route("/new.html") { _ in newPageExists.load(ordering: .relaxed) ? .html("<p>new</p>") : .status(404) }
            func inode(_ url: String) throws -> Int? {
                let resource = try #require(try harness.manifest().resources[origin.url(url)])
                let attributes = try FileManager.default.attributesOfItem(atPath: harness.root + "/out/" + resource.path)
                return (attributes[.systemFileNumber] as? NSNumber)?.intValue
            }
            _ = try await harness.crawl([origin.url("/")]) { $0.retries = 0 }
            let (home, a, b) = (try inode("/"), try inode("/a.html"), try inode("/b.html"))

            newPageExists.store(true, ordering: .relaxed)
            _ = try await harness.crawl([origin.url("/")], mode: .refresh)
            #expect(try inode("/b.html") == b, "a page whose links did not change was written again")
            #expect(try inode("/") != home && inode("/a.html") != a, "the pages linking to the new page were not rewritten")
            _ = try await harness.crawl([origin.url("/")], output: "fresh", mode: .offline)
            #expect(
                FolderContents.files(harness.root + "/out", excluding: [".mirror/journal", ".mirror/tmp", ".mirror/manifest"])
                    == FolderContents.files(harness.root + "/fresh", excluding: [".mirror/journal", ".mirror/tmp", ".mirror/manifest"]))
        }
    }

    /// `/` and `/index.html` share a file; when the home page changes, the first of them to be
    /// fetched again leaves that file for a moment, and both share it again once the crawl ends:
    /// the folder is the one a crawl into a new folder makes.
    @Test func aChangedHomePageKeepsOneFileForItsSpellings() async throws {
        try await TestOrigin.with { origin in
            let version = Atomic<Int>(1)
            for path in ["/", "/index.html"] {
                origin.route(path) { _ in
                    let number = version.load(ordering: .relaxed)
                    return .html("<a href='/index.html'>home \(number)</a> <a href='/a.html'>a</a>", headers: [("ETag", "\"v\(number)\"")])
                }
            }
            origin.route("/a.html") { _ in .html("<a href='/'>home</a>", headers: [("ETag", "\"a\"")]) }
            _ = try await harness.crawl([origin.url("/")])
            let first = try harness.manifest()
            #expect(first.resources[origin.url("/")]?.path == first.resources[origin.url("/index.html")]?.path)

            version.store(2, ordering: .relaxed)
            _ = try await harness.crawl([origin.url("/")], mode: .refresh)
            let manifest = try harness.manifest()
            let home = try #require(manifest.resources[origin.url("/")])
            #expect(home.path == first.resources[origin.url("/")]?.path)
            #expect(manifest.resources[origin.url("/index.html")]?.path == home.path, "the spellings of the home page were parted")
            _ = try await harness.crawl([origin.url("/")], output: "fresh", mode: .offline)
            let excluded = [".mirror/journal", ".mirror/tmp", ".mirror/manifest"]
            #expect(
                FolderContents.files(harness.root + "/out", excluding: excluded)
                    == FolderContents.files(harness.root + "/fresh", excluding: excluded))
        }
    }

    /// A page that changed keeps only its new original: the old one goes, and so does any other
    /// file in `.mirror/originals` that no saved page needs.
    @Test func onlyTheOriginalsStillNeededStay() async throws {
        try await TestOrigin.with { origin in
            let version = Atomic<Int>(1)
            origin.route("/") { _ in
                let number = version.load(ordering: .relaxed)
                return .html("<a href='/a.html'>a \(number)</a>", headers: [("ETag", "\"v\(number)\"")])
            }
            origin.route("/a.html") { _ in .html("<a href='/'>home</a>", headers: [("ETag", "\"a\"")]) }
            func originals() throws -> Set<String> {
                Set(try FileManager.default.contentsOfDirectory(atPath: harness.root + "/out/" + SiteManifest.originalsFolder))
            }
            func needed() throws -> Set<String> {
                Set(try harness.manifest().resources.values.filter { $0.file != nil }.map(\.sha256))
            }
            _ = try await harness.crawl([origin.url("/")])
            let first = try originals()
            #expect(try first.count == 2 && first == needed())
            let stray = harness.root + "/out/" + SiteManifest.originalPath(sha256: String(repeating: "0", count: 64))
            #expect(FileManager.default.createFile(atPath: stray, contents: Data("x".utf8)))
            version.store(2, ordering: .relaxed)
            _ = try await harness.crawl([origin.url("/")], mode: .refresh)
            let second = try originals()
            #expect(try second == needed())
            #expect(second.count == 2 && second.intersection(first).count == 1, "the changed page's old original stayed")
        }
    }

    /// The links of a page are remembered by its body: a changed page is parsed again.
    @Test func aChangedPageIsParsedAgain() async throws {
        try await TestOrigin.with { origin in
            let version = Atomic<Int>(1)
            origin.route("/") { _ in
                let target = version.load(ordering: .relaxed) == 1 ? "/one.html" : "/two.html"
                return .html("<a href='\(target)'>next</a>", headers: [("ETag", "\"v\(version.load(ordering: .relaxed))\"")])
            }
            origin.route("/one.html") { _ in .html("one") }
            origin.route("/two.html") { _ in .html("two") }
            _ = try await harness.crawl([origin.url("/")])
            origin.clearLog()
            _ = try await harness.crawl([origin.url("/")], mode: .refresh)
            #expect(!origin.requests.map(\.uri).contains("/two.html"))
            version.store(2, ordering: .relaxed)
            origin.clearLog()
            _ = try await harness.crawl([origin.url("/")], mode: .refresh)
            #expect(origin.requests.map(\.uri).contains("/two.html"), "the old links of the page were used")
        }
    }
}
