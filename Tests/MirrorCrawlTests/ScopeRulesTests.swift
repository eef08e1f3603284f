import Testing

@testable import MirrorCrawl

@Suite("Scope rules: repeated segments")
struct ScopeRulesTests {
    /// A segment may occur `maxRepeatedSegments` times (3), not more; empty segments do not count.
    /// Paths of at most three segments are decided by counting alone, longer ones by each
    /// segment's count: both sides of that line, and empty segments on each.
    @Test(arguments: [
        ("", false), ("/", false), ("/a/a/a", false), ("//a//a//a//", false), ("/a/b/c", false),
        ("/a/a/a/a", true), ("//a//a//a//a", true), ("/a/b/a/b/a/b/a", true), ("/a/b/a/b/a/b", false),
        ("/a/b/c/d/e/f", false), ("/x/y/x/y/x/y/x/y", true),
    ])
    func aSegmentMayOccurThreeTimes(path: String, repeats: Bool) {
        let rules = ScopeRules(configuration: CrawlConfiguration(seeds: ["http://a.test/"]))
        #expect(rules.configuration.maxRepeatedSegments == 3)
        #expect(rules.hasRepeatedSegments(path) == repeats, "\(path)")
    }
}
