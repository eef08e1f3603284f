import MirrorHTML
import Testing

@Suite("Sitemaps on libxml2")
struct SitemapParserTests {
    @Test func readsPagesOfAURLSet() {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
              <url><loc> http://example.org/a.html </loc><lastmod>2024-01-01</lastmod></url>
              <url><loc>http://example.org/b?x=1&amp;y=2</loc></url>
            </urlset>
            """
        let entries = SitemapParser.entries(in: Array(xml.utf8))
        #expect(entries.pages == ["http://example.org/a.html", "http://example.org/b?x=1&y=2"])
        #expect(entries.sitemaps.isEmpty)
    }

    @Test func readsNestedSitemapsOfAnIndexInChunks() {
        let xml = """
            <sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
              <sitemap><loc>http://example.org/one.xml</loc></sitemap>
              <sitemap><loc>http://example.org/two.xml.gz</loc></sitemap>
            </sitemapindex>
            """
        let parser = SitemapParser()
        for byte in xml.utf8 { parser.feed([byte]) }
        let entries = parser.finish()
        #expect(entries.sitemaps == ["http://example.org/one.xml", "http://example.org/two.xml.gz"])
        #expect(entries.pages.isEmpty)
    }

    @Test func entitiesAreNotExpandedAndLimitsHold() {
        let bomb = """
            <?xml version="1.0"?>
            <!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
            <!ENTITY ext SYSTEM "file:///etc/passwd">]>
            <urlset><url><loc>http://example.org/&lol2;</loc></url><url><loc>&ext;</loc></url></urlset>
            """
        let entries = SitemapParser.entries(in: Array(bomb.utf8))
        #expect(!entries.pages.contains { $0.contains("root:") })
        let many = "<urlset>" + (0..<100).map { "<url><loc>http://e.org/\($0)</loc></url>" }.joined() + "</urlset>"
        #expect(SitemapParser.entries(in: Array(many.utf8), limit: 10).pages.count == 10)
    }

    @Test func garbageGivesNothing() {
        #expect(SitemapParser.entries(in: Array("<html><body>not a sitemap".utf8)) == .init())
        #expect(SitemapParser.entries(in: [0x1f, 0x8b, 0, 1, 2]) == .init())
    }
}
