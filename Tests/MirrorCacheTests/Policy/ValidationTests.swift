import MirrorCache
import NIOHTTP1
import Testing

/// RFC 9111 §4.3: validation (conditional requests, selecting and updating stored responses).
@Suite("Policy: §4.3 validation")
struct PolicyValidationTests {
    typealias F = PolicyFixture

    // MARK: §4.3.1 Sending a validation request

    @Test func validatorsCarryETagAndLastModified() {
        let modified = F.date(500)
        let head = F.head([("ETag", "\"v1\""), ("Last-Modified", modified), ("Content-Type", "text/html")])
        let conditional = F.privateCache.validators(for: head)
        #expect(conditional["if-none-match"] == ["\"v1\""])
        #expect(conditional["if-modified-since"] == [modified])
        #expect(conditional.count == 2)
        #expect(F.privateCache.hasValidators(head))
    }

    @Test func validatorsWithOnlyAnETag() {
        let head = F.head([("etag", "W/\"weak-1\"")])
        let conditional = F.privateCache.validators(for: head)
        #expect(conditional["If-None-Match"] == ["W/\"weak-1\""])
        #expect(!conditional.contains(name: "if-modified-since"))
        #expect(F.privateCache.hasValidators(head))
    }

    @Test func validatorsWithOnlyLastModified() {
        let modified = "Sun, 06 Nov 1994 08:49:37 GMT"
        let head = F.head([("Last-Modified", modified)])
        let conditional = F.privateCache.validators(for: head)
        #expect(conditional["If-Modified-Since"] == [modified])
        #expect(!conditional.contains(name: "if-none-match"))
        #expect(F.privateCache.hasValidators(head))
    }

    @Test func noValidatorsWithoutETagOrLastModified() {
        let head = F.head([("Date", F.date(1000)), ("Cache-Control", "max-age=60")])
        #expect(F.privateCache.validators(for: head).count == 0)
        #expect(!F.privateCache.hasValidators(head))
    }

    // MARK: §4.3.4 Selecting the stored response a 304 updates

    func selects(_ notModified: [(String, String)], _ stored: [(String, String)]) -> Bool {
        F.privateCache.notModified(F.headers(notModified), selects: F.head(stored))
    }

    @Test func aStrongETagSelectsTheSameStrongETag() {
        #expect(selects([("ETag", "\"v1\"")], [("ETag", "\"v1\"")]))
        #expect(!selects([("ETag", "\"v2\"")], [("ETag", "\"v1\"")]))
    }

    @Test func aStrongETagDoesNotSelectAWeakOne() {
        // "If none of the stored responses contain at least one of the same strong validators,
        // then the cache MUST NOT use the new response to update any stored responses."
        #expect(!selects([("ETag", "\"v1\"")], [("ETag", "W/\"v1\"")]))
    }

    @Test func aWeakETagSelectsByWeakComparison() {
        #expect(selects([("ETag", "W/\"v1\"")], [("ETag", "W/\"v1\"")]))
        #expect(selects([("ETag", "W/\"v1\"")], [("ETag", "\"v1\"")]))
        #expect(!selects([("ETag", "W/\"v2\"")], [("ETag", "W/\"v1\"")]))
        #expect(!selects([("ETag", "W/\"v2\"")], [("ETag", "\"v1\"")]))
    }

    @Test func etagComparisonIgnoresSurroundingWhitespaceButNotCase() {
        #expect(selects([("ETag", " \"v1\" ")], [("ETag", "\"v1\"")]))
        #expect(!selects([("ETag", "\"V1\"")], [("ETag", "\"v1\"")]))
    }

    @Test func anETagCannotSelectAResponseWithoutOne() {
        #expect(!selects([("ETag", "\"v1\"")], [("Last-Modified", F.date(500))]))
    }

    @Test func theETagDecidesOverLastModified() {
        #expect(selects([("ETag", "\"v1\""), ("Last-Modified", F.date(900))], [("ETag", "\"v1\""), ("Last-Modified", F.date(500))]))
        #expect(!selects([("ETag", "\"v2\""), ("Last-Modified", F.date(500))], [("ETag", "\"v1\""), ("Last-Modified", F.date(500))]))
    }

    @Test func lastModifiedSelectsWithoutETags() {
        #expect(selects([("Last-Modified", F.date(500))], [("Last-Modified", F.date(500))]))
        #expect(!selects([("Last-Modified", F.date(600))], [("Last-Modified", F.date(500))]))
        #expect(!selects([("Last-Modified", F.date(500))], [("Content-Type", "text/plain")]))
    }

    @Test func aNotModifiedWithoutValidatorsSelectsTheValidatedResponse() {
        // Implementation choice: the cache only validates one stored response at a time, so a 304
        // carrying neither ETag nor Last-Modified is taken to refer to it (§4.3.4's third case
        // strictly covers only stored responses without validators).
        #expect(selects([("Date", F.date(2000))], [("ETag", "\"v1\"")]))
        #expect(selects([], []))
    }

    // MARK: §3.2 / §4.3.4 Updating stored header fields

    let stored = PolicyFixture.head(
        [
            ("Content-Type", "text/html"),
            ("Content-Length", "1234"),
            ("Content-Encoding", "gzip"),
            ("ETag", "\"v1\""),
            ("Date", PolicyFixture.date(1000)),
            ("Cache-Control", "max-age=60"),
            ("Link", "</a.css>"),
            ("Link", "</b.css>"),
            ("X-Unchanged", "still here"),
        ], requestTime: 999, responseTime: 1000)

    let notModified = PolicyFixture.headers([
        ("Date", PolicyFixture.date(5000)),
        ("Cache-Control", "max-age=600"),
        ("ETag", "\"v1\""),
        ("Content-Length", "0"),
        ("Content-Encoding", "br"),
        ("link", "</c.css>"),
        ("Connection", "close, X-Hop"),
        ("X-Hop", "1"),
        ("Keep-Alive", "timeout=5"),
        ("Transfer-Encoding", "chunked"),
        ("X-New", "added"),
    ])

    @Test func updatedReplacesFieldsFromTheNotModified() {
        let head = F.privateCache.updated(stored, with: notModified, requestTime: 4990, responseTime: 5000)
        #expect(head.headers["cache-control"] == ["max-age=600"])
        #expect(head.headers["date"] == [F.date(5000)])
        #expect(head.headers["etag"] == ["\"v1\""])
        #expect(head.headers["link"] == ["</c.css>"])  // every old line replaced
        #expect(head.headers["x-new"] == ["added"])
        #expect(head.headers["x-unchanged"] == ["still here"])
        #expect(head.headers["content-type"] == ["text/html"])
    }

    @Test func updatedKeepsTheFieldsDescribingTheStoredBody() {
        let head = F.privateCache.updated(stored, with: notModified, requestTime: 4990, responseTime: 5000)
        #expect(head.headers["content-length"] == ["1234"])
        #expect(head.headers["content-encoding"] == ["gzip"])
    }

    @Test func updatedDropsHopByHopFields() {
        let head = F.privateCache.updated(stored, with: notModified, requestTime: 4990, responseTime: 5000)
        for name in ["connection", "x-hop", "keep-alive", "transfer-encoding"] {
            #expect(!head.headers.contains(name: name), "\(name) was stored")
        }
    }

    @Test func updatedKeepsTheStatusAndTakesTheNewTimes() {
        let redirect = F.head(status: 301, [("Location", "/new"), ("ETag", "\"r\"")], requestTime: 10, responseTime: 11)
        let head = F.privateCache.updated(
            redirect, with: F.headers([("Cache-Control", "max-age=5")]),
            requestTime: 4990, responseTime: 5000)
        #expect(head.status == 301)
        #expect(head.requestTime == 4990)
        #expect(head.responseTime == 5000)
        #expect(head.headers["location"] == ["/new"])
    }

    @Test func anUpdatedResponseIsFreshAgain() {
        let policy = F.privateCache
        #expect(policy.reuse(stored, request: [:], now: 5000, mode: .standard) == .validate)
        let head = policy.updated(stored, with: notModified, requestTime: 4990, responseTime: 5000)
        #expect(policy.freshnessLifetime(head) == 600)
        #expect(policy.currentAge(head, now: 5100) == 110)  // delay 10 + resident 100
        #expect(policy.reuse(head, request: [:], now: 5100, mode: .standard) == .serve(age: 110, stale: false))
    }

    @Test func anEmptyNotModifiedOnlyUpdatesTheTimes() {
        let head = F.privateCache.updated(stored, with: [:], requestTime: 2000, responseTime: 2001)
        #expect(head.headers == stored.headers)
        #expect(head.requestTime == 2000 && head.responseTime == 2001)
    }
}
