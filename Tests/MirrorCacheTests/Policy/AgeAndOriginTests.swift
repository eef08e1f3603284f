import MirrorCache
import NIOHTTP1
import Testing

/// The policy's Age after a 304, Age syntax, and default ports in origin comparisons.
@Suite("Policy: Age and origins")
struct PolicyAgeAndOriginTests {
    typealias F = PolicyFixture

    /// §4.3.4 with §4.2.3: the stored Age described the old response; after a 304 without Age
    /// the response is as old as the time since the 304, not 50 s older.
    @Test func aStoredAgeIsNotCarriedPastA304() {
        let stored = F.head([("Age", "50"), ("Cache-Control", "max-age=100"), ("ETag", "\"a\"")])
        let updated = F.privateCache.updated(stored, with: F.headers([("ETag", "\"a\"")]), requestTime: 2000, responseTime: 2000)
        #expect(updated.headers.first(name: "age") == nil)
        #expect(F.privateCache.currentAge(updated, now: 2010) == 10)
        let viaCache = F.privateCache.updated(stored, with: F.headers([("Age", "7")]), requestTime: 2000, responseTime: 2000)
        #expect(viaCache.headers["age"] == ["7"])
    }

    /// §5.1: Age is delta-seconds; other forms are ignored.
    @Test(arguments: ["1e3", "5.5", "-4", "abc", ""])
    func malformedAgeIsIgnored(value: String) {
        let head = F.head([("Age", value)], requestTime: 1000, responseTime: 1000)
        #expect(F.privateCache.currentAge(head, now: 1000) == 0)
    }

    /// §4.4 compares origins: an explicit default port is the same origin.
    @Test func locationWithTheDefaultPortIsSameOrigin() {
        let urls = F.privateCache.invalidatedURLs(
            method: .POST, status: 201, url: "http://example.test/items",
            response: F.headers([("Location", "http://example.test:80/items/9")]))
        #expect(urls == ["http://example.test/items", "http://example.test/items/9"])
    }
}
