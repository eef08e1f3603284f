import Foundation
import MirrorCrawl
import MirrorCrawlTesting
import MirrorHTML
import MirrorSite
import MirrorTestSupport
import Testing

/// Every page of a finished folder is its original rewritten, on its own, against where its
/// links lead once the crawl is done — whatever the crawl met on the way.
@Suite("Rewritten pages", .serialized)
final class RewrittenPageTests {
    /// A harness for each test (Swift Testing makes a new instance per test); `deinit` removes its folder.
    let harness = CrawlHarness()

    deinit {
        harness.remove()
    }

    /// Each HTML file of the folder compared with its original (the kept one, or the file itself)
    /// rewritten, on its own, against the finished manifest.
    func pagesDifferingFromTheirRewrite(_ name: String = "out") throws -> [String] {
        let manifest = try harness.manifest(name)
        let folder = harness.root + "/" + name + "/"
        var differing: [String] = []
        for (url, resource) in manifest.resources where (resource.contentType ?? "").contains("html") {
            let file = try Array(Data(contentsOf: URL(fileURLWithPath: folder + resource.path)))
            let original =
                resource.file == nil
                ? file : try Array(Data(contentsOf: URL(fileURLWithPath: folder + SiteManifest.originalPath(sha256: resource.sha256))))
            let charset = CharsetSniffer.charset(contentType: resource.contentType, prefix: Array(original.prefix(1024)))
            let expected = LinkRewriter().rewriteHTML(
                original, charset: charset, pageURL: url, pagePath: resource.path,
                target: manifest.path(for:))
            if file != expected { differing.append(url) }
        }
        return differing.sorted()
    }

    /// Pages, folders, a style sheet, an extensionless page, a query and a link off the site.
    @Test func aPlainSite() async throws {
        try await TestOrigin.with { origin in
            origin.route("/") { _ in
                .html("<link rel=stylesheet href='/s.css'><a href='/a.html'>a</a> <a href='/docs/'>docs</a> <a href='/b'>b</a>")
            }
            origin.route("/s.css") { _ in .content("body { background: url(/i.png) }", type: "text/css") }
            origin.route("/i.png") { _ in .content("png", type: "image/png") }
            origin.route("/a.html") { _ in .html("<a href='/'>home</a> <a href='/docs/'>docs</a> <img src='/i.png'>") }
            origin.route("/docs/") { _ in .html("<a href='../a.html'>a</a> <a href='/b#top'>b</a>") }
            origin.route("/b") { _ in .html("<a href='/a.html?x=1'>a with a query</a> <a href='http://elsewhere.test/'>away</a>") }
            origin.route("/a.html?x=1") { _ in .html("<a href='/'>home</a>") }
            _ = try await harness.crawl([origin.url("/")])
            #expect(try harness.manifest().resources.count == 7)
            #expect(try pagesDifferingFromTheirRewrite().isEmpty)
            let b = try String(
                contentsOfFile: harness.root + "/out/" + harness.manifest().resources[origin.url("/docs/")]!.path, encoding: .utf8)
            #expect(b.contains("href='../b.html#top'"), "\(b)")
        }
    }

    /// Links through a redirect, to a page that fails, to names that collide once case-folded,
    /// to types that change a name, and beyond the page budget.
    @Test func aSiteOfLinksThatLeadElsewhere() async throws {
        try await TestOrigin.with { origin in
            let links = ["/moved", "/gone.html", "/A.html", "/a.html", "/style", "/report", "/far/1.html", "/far/2.html", "/far/3.html"]
            origin.route("/") { _ in
                .html(links.map { "<a href='\($0)'>\($0)</a>" }.joined(separator: " ") + " <link rel=stylesheet href='/style'>")
            }
            origin.route("/moved") { _ in .redirect(to: "/a.html") }
            origin.route("/gone.html") { _ in .status(404) }
            origin.route("/A.html") { _ in .html("<a href='/a.html'>a</a> <a href='/moved'>moved</a>") }
            origin.route("/a.html") { _ in .html("<a href='/A.html'>A</a> <a href='/gone.html'>gone</a> <a href='/report'>report</a>") }
            origin.route("/style") { _ in .content("a { color: red }", type: "text/css") }
            origin.route("/report") { _ in .content("%PDF-1.4", type: "application/pdf") }
            for page in 1...3 { origin.route("/far/\(page).html") { _ in .html("<a href='/'>home</a> <a href='/A.html'>A</a>") } }
            _ = try await harness.crawl([origin.url("/")]) {
                $0.retries = 0
                $0.maxPages = 5
            }
            let manifest = try harness.manifest()
            #expect(manifest.resources[origin.url("/gone.html")] == nil)
            #expect(manifest.redirects[origin.url("/moved")] != nil)
            #expect(try pagesDifferingFromTheirRewrite().isEmpty)
        }
    }
}
