import Testing

@testable import MirrorCrawl

@Suite("robots.txt (RFC 9309)")
struct RobotsRulesTests {
    let agent = "mirror/0.1 (+offline snapshots)"

    @Test func ourGroupsAreCombinedAndWinOverStar() {
        let rules = RobotsRules(
            text: """
                User-agent: *
                Disallow: /

                User-agent: Mirror
                User-agent: other-bot
                Disallow: /private
                Crawl-delay: 1.5

                user-agent: MIRROR
                allow: /private/open
                """, userAgent: agent)
        #expect(rules.allows("/public"))
        #expect(!rules.allows("/private/x"))
        #expect(rules.allows("/private/open/page"))
        #expect(rules.crawlDelay == 1.5)
    }

    @Test func starGroupAppliesWhenNoGroupIsOurs() {
        let rules = RobotsRules(
            text: "User-agent: googlebot\nDisallow: /\n\nUser-agent: *\nDisallow: /tmp/\nCrawl-delay: 2", userAgent: agent)
        #expect(rules.allows("/"))
        #expect(!rules.allows("/tmp/file"))
        #expect(rules.crawlDelay == 2)
        #expect(RobotsRules(text: "User-agent: googlebot\nDisallow: /", userAgent: agent).allows("/anything"))
    }

    @Test(arguments: [
        ("/fish", "/fish", true), ("/fish", "/fish.html", true), ("/fish", "/Fish", false),
        ("/fish*", "/fishheads/x", true), ("/*.php", "/index.php", true), ("/*.php", "/folder/x.php?y=1", true),
        ("/*.php$", "/x.php", true), ("/*.php$", "/x.php?y", false), ("/fish$", "/fish", true), ("/fish$", "/fishy", false),
        ("/a*b*c", "/a--b--c--", true), ("/a*b*c", "/a--c--b", false), ("/%7Euser", "/~user/page", true),
        ("/caf%C3%A9", "/café", true),
    ])
    func patterns(pattern: String, path: String, matches: Bool) {
        let rules = RobotsRules(text: "User-agent: *\nDisallow: \(pattern)", userAgent: agent)
        #expect(rules.allows(path) == !matches, "\(pattern) vs \(path)")
    }

    @Test func longestMatchWinsAndAllowWinsTies() {
        let rules = RobotsRules(
            text: "User-agent: *\nDisallow: /docs/\nAllow: /docs/public\nDisallow: /same\nAllow: /same", userAgent: agent)
        #expect(!rules.allows("/docs/secret"))
        #expect(rules.allows("/docs/public/page"))
        #expect(rules.allows("/same"))
    }

    @Test func commentsEmptyDisallowSitemapsAndRobotsItself() {
        let rules = RobotsRules(
            text: """
                # a comment
                User-agent: * # trailing comment
                Disallow:
                Sitemap: http://example.org/sitemap.xml
                """, userAgent: agent)
        #expect(rules.allows("/anything"))
        #expect(rules.sitemaps == ["http://example.org/sitemap.xml"])
        #expect(RobotsRules.disallowAll.allows("/robots.txt"))
        #expect(!RobotsRules.disallowAll.allows("/"))
    }

    @Test func garbageIsHarmless() {
        let rules = RobotsRules(text: "<html><body>Not a robots file</body></html>\n\u{0}\u{FFFF}:::\nDisallow /x", userAgent: agent)
        #expect(rules.allows("/x"))
    }

    /// Found by the `robots` fuzz target: CR LF is one `Character`, equal to neither CR nor LF,
    /// so a Windows-written file was one long line, and everything was allowed.
    @Test func crlfLineEnds() {
        let rules = RobotsRules(text: "User-agent: *\r\nDisallow: /private\r\nAllow: /private/open\r\nCrawl-delay: 3\r\n", userAgent: agent)
        #expect(!rules.allows("/private/x"))
        #expect(rules.allows("/private/open/page"))
        #expect(rules.crawlDelay == 3)
    }

    /// A `#` or `:` with a combining mark after it is still a comment's start or a field's end.
    @Test func combiningMarksHideNoDelimiter() {
        let rules = RobotsRules(text: "User-agent: *\nDisallow: /d #\u{301} a comment\nDisallow:\u{301}/e", userAgent: agent)
        #expect(!rules.allows("/d"))
        #expect(rules.rules.map(\.pattern) == [Array("/d".utf8), Array("%CC%81/e".utf8)])
    }

    /// Found by the `robots` fuzz target: a group of ours without rules, or with an empty
    /// `Disallow:`, is our group (RFC 9309 §2.2.1): the `*` groups do not apply to us.
    @Test func aGroupOfOursWithoutRulesAllowsEverything() {
        for text in ["User-agent: mirror\nDisallow:\n\nUser-agent: *\nDisallow: /\n", "User-agent: *\nDisallow: /\n\nUser-agent: mirror\n"]
        {
            let rules = RobotsRules(text: text, userAgent: agent)
            #expect(rules.allows("/anything"), "\(text)")
        }
        #expect(RobotsRules(text: "User-agent: mirror\nCrawl-delay: 4\nUser-agent: *\nDisallow: /", userAgent: agent).allows("/x"))
    }

    /// Found by reading the frontier, which counts a delay in whole milliseconds of an `Int`:
    /// `Crawl-delay: inf` or `1e300` trapped there. Longer delays are read as a day.
    @Test(
        arguments: [("1e300", 86_400.0), ("inf", 86_400), ("86401", 86_400), ("2.5", 2.5), ("nan", nil), ("-1", nil)] as [(String, Double?)]
    )
    func crawlDelaysAreBounded(value: String, expected: Double?) {
        #expect(RobotsRules(text: "User-agent: *\nCrawl-delay: \(value)\nDisallow: /x", userAgent: agent).crawlDelay == expected)
    }
}
