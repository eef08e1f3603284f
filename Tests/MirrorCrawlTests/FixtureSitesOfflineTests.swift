import Foundation
import MirrorCrawlTesting
import MirrorSite
import MirrorTestSupport
import Testing

/// Every fixture site, crawled whole, browses offline: every link the crawl followed — also in
/// the `malformed` site's pages (NUL bytes, invalid UTF-8, unquoted values, unclosed tags,
/// titles and comments) — leads to a saved file or is absolute. (The `scripted` and `checked`
/// sites' pages are built by scripts: `BrowserCrawlTests` and `BrowserCheckTests` crawl them with a
/// browser and check their folders so.)
@Suite("Fixture sites browse offline")
struct FixtureSitesOfflineTests {
    static let sites =
        ((try? FileManager.default.contentsOfDirectory(
            atPath: FixtureSite.repositoryRoot.appendingPathComponent("fixtures/sites").path)) ?? [])
        .filter { !$0.contains(".") && !["scripted", "checked"].contains($0) }.sorted()

    @Test func everySiteIsListed() {
        #expect(Self.sites.contains("malformed") && Self.sites.count >= 3, "\(Self.sites)")
    }

    @Test(arguments: sites)
    func theCrawledSiteHasNoBrokenLink(site: String) async throws {
        try await CrawlHarness.with { harness in
            try await TestOrigin.with(site: .named(site)) { origin in
                _ = try await harness.crawl([origin.url("/")])
                let report = try OfflineLinkChecker(folder: harness.root + "/out", origin: origin.baseURL, exampleLimit: 50).check()
                #expect(report.broken == 0, "\(report.examples.map { "\($0.file) -> \($0.link): \($0.reason)" })")
                #expect(report.local > 10, "\(report)")
            }
        }
    }
}
