import MirrorCache
import NIOHTTP1
import Testing

/// RFC 9111 §4.2.1 (calculating freshness lifetime) and §4.2.2 (heuristic freshness).
@Suite("Policy: §4.2.1 freshness lifetime")
struct PolicyFreshnessTests {
    typealias F = PolicyFixture

    func lifetime(
        _ policy: CachePolicy, status: Int = 200, _ fields: [(String, String)],
        responseTime: Double = 1000
    ) -> Double {
        policy.freshnessLifetime(F.head(status: status, fields, requestTime: responseTime, responseTime: responseTime))
    }

    /// In a private cache.
    func lifetime(status: Int = 200, _ fields: [(String, String)], responseTime: Double = 1000) -> Double {
        lifetime(F.privateCache, status: status, fields, responseTime: responseTime)
    }

    // MARK: s-maxage and max-age

    @Test func maxAgeIsTheLifetime() {
        #expect(lifetime([("Cache-Control", "max-age=60")]) == 60)
        #expect(lifetime(F.sharedCache, [("Cache-Control", "max-age=60")]) == 60)
        #expect(lifetime([("Cache-Control", "max-age=0")]) == 0)
    }

    @Test func sharedMaxAgeAppliesOnlyToSharedCaches() {
        let fields = [("Cache-Control", "max-age=60, s-maxage=600")]
        #expect(lifetime(F.sharedCache, fields) == 600)
        #expect(lifetime(F.privateCache, fields) == 60)
        // s-maxage first in the list changes nothing.
        #expect(lifetime(F.sharedCache, [("Cache-Control", "s-maxage=10, max-age=600")]) == 10)
        #expect(lifetime(F.privateCache, [("Cache-Control", "s-maxage=10, max-age=600")]) == 600)
    }

    @Test func sharedMaxAgeAloneGivesNoFreshnessToAPrivateCache() {
        let fields = [("Cache-Control", "s-maxage=600"), ("Date", F.date(1000))]
        #expect(lifetime(F.sharedCache, status: 302, fields) == 600)
        #expect(lifetime(F.privateCache, status: 302, fields) == 0)
    }

    @Test func sharedMaxAgeOverridesExpiresInASharedCache() {
        let fields = [("Cache-Control", "s-maxage=30"), ("Date", F.date(1000)), ("Expires", F.date(4600))]
        #expect(lifetime(F.sharedCache, fields) == 30)
        #expect(lifetime(F.privateCache, fields) == 3600)
    }

    @Test func maxAgeOverridesExpires() {
        let fields = [("Date", F.date(1000)), ("Expires", F.date(4600)), ("Cache-Control", "max-age=60")]
        #expect(lifetime(fields) == 60)
        #expect(lifetime(F.sharedCache, fields) == 60)
        // Even when Expires is invalid or already past.
        #expect(lifetime([("Expires", "0"), ("Cache-Control", "max-age=60")]) == 60)
        #expect(lifetime([("Date", F.date(1000)), ("Expires", F.date(10)), ("Cache-Control", "max-age=60")]) == 60)
    }

    // MARK: Expires

    @Test(arguments: [
        (date: Int64(1000), expires: Int64(1300), expected: 300.0),
        (date: 900, expires: 1200, expected: 300),  // Expires − Date, not Expires − response time
        (date: 1000, expires: 1000, expected: 0),
        (date: 1000, expires: 400, expected: 0),  // in the past: stale, never negative
        (date: 1_700_000_000, expires: 1_700_086_400, expected: 86400),
    ])
    func expiresMinusDate(date: Int64, expires: Int64, expected: Double) {
        #expect(lifetime([("Date", F.date(date)), ("Expires", F.date(expires))]) == expected)
    }

    @Test func expiresWithoutDateUsesTheResponseTime() {
        #expect(lifetime([("Expires", F.date(1500))], responseTime: 1000) == 500)
        #expect(lifetime([("Expires", F.date(1500))], responseTime: 1200) == 300)
        #expect(lifetime([("Expires", F.date(1500))], responseTime: 2000) == 0)
    }

    @Test func anInvalidDateCountsAsMissing() {
        #expect(lifetime([("Date", "yesterday"), ("Expires", F.date(1500))], responseTime: 1000) == 500)
    }

    @Test(arguments: ["0", "-1", "never", "", "Thu, 01 Jan 1970 00:00:00", "Fri, 32 Dec 2099 00:00:00 GMT"])
    func invalidExpiresMeansAlreadyStale(expires: String) {
        // §5.3: an invalid date "in the past"; also blocks heuristic freshness (Last-Modified is ignored).
        let fields = [("Date", F.date(10000)), ("Expires", expires), ("Last-Modified", F.date(0))]
        #expect(lifetime(fields) == 0)
        #expect(lifetime(F.sharedCache, fields) == 0)
    }

    @Test func expiresInObsoleteDateFormats() {
        // Sun, 06 Nov 1994 08:49:37 GMT as Date; RFC 850 and asctime Expires (RFC 9110 §5.6.7).
        let date = "Sun, 06 Nov 1994 08:49:37 GMT"
        #expect(lifetime([("Date", date), ("Expires", "Sunday, 06-Nov-94 08:59:37 GMT")]) == 600)
        #expect(lifetime([("Date", date), ("Expires", "Sun Nov  6 09:49:37 1994")]) == 3600)
    }

    /// Two Expires lines make one field value, "date, date", which is no date: already expired
    /// (§5.3), as the HTTP caching tests expect.
    @Test func twoExpiresLinesAreAnInvalidDate() {
        let fields = [("Date", F.date(1000)), ("Expires", F.date(1100)), ("Expires", F.date(9000))]
        #expect(lifetime(fields) == 0)
    }

    // MARK: Targeted fields (RFC 9213)

    /// A cache targeted by CDN-Cache-Control obeys it instead of Cache-Control and Expires when a
    /// response carries it; other caches, and responses without it, are unchanged.
    @Test func aTargetedFieldReplacesCacheControlAndExpires() {
        var gateway = CachePolicy(isShared: true)
        gateway.targetedField = "cdn-cache-control"
        let both = [("Cache-Control", "max-age=60"), ("CDN-Cache-Control", "max-age=600")]
        #expect(lifetime(gateway, both) == 600)
        #expect(lifetime(F.sharedCache, both) == 60)
        #expect(lifetime(gateway, [("Cache-Control", "max-age=60")]) == 60)
        #expect(lifetime(gateway, [("Date", F.date(1000)), ("Expires", F.date(1100)), ("CDN-Cache-Control", "no-cache")]) == 0)
        let request = HTTPHeaders()
        #expect(
            !gateway.canStore(
                method: .GET, request: request, status: 200,
                response: F.headers([("Cache-Control", "max-age=60"), ("CDN-Cache-Control", "no-store")])))
        #expect(
            !gateway.canStore(
                method: .GET, request: request, status: 200,
                response: F.headers([("Cache-Control", "max-age=60"), ("CDN-Cache-Control", "private")])))
        #expect(
            gateway.canStore(
                method: .GET, request: request, status: 200,
                response: F.headers([("Cache-Control", "no-store"), ("CDN-Cache-Control", "max-age=600")])))
    }

    /// A targeted field that is not a valid Structured Field Dictionary, or whose max-age is not
    /// an Integer, is ignored as a whole: Cache-Control decides.
    @Test(arguments: ["max-age=10000, &&&&&", "max-age=\"10000\"", "max-age", "max-age=600,", "MAX-AGE=600", "", "max-age=1.5"])
    func anInvalidTargetedFieldIsIgnored(value: String) {
        var gateway = CachePolicy(isShared: true)
        gateway.targetedField = "cdn-cache-control"
        #expect(lifetime(gateway, [("Cache-Control", "max-age=60"), ("CDN-Cache-Control", value)]) == 60)
    }

    @Test(arguments: [
        "max-age=600", "max-age=600, private;x=1", " max-age=600 ,  no-transform",
        "max-age=600, foo=\"bar\", b=:YQ==:, t=?1, d=1.25, x=tok/en",
    ])
    func aValidTargetedFieldIsObeyed(value: String) {
        var gateway = CachePolicy(isShared: true)
        gateway.targetedField = "cdn-cache-control"
        #expect(lifetime(gateway, [("Cache-Control", "max-age=60"), ("CDN-Cache-Control", value)]) == 600)
    }

    // MARK: Heuristic freshness (§4.2.2)

    @Test(arguments: [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501])
    func heuristicIsTenPercentOfDateMinusLastModified(status: Int) {
        let fields = [("Date", F.date(100_000)), ("Last-Modified", F.date(90_000))]
        #expect(lifetime(status: status, fields) == 1000)
        #expect(lifetime(F.sharedCache, status: status, fields) == 1000)
    }

    @Test(arguments: [302, 303, 307, 500, 503])
    func noHeuristicForOtherCodes(status: Int) {
        let fields = [("Date", F.date(100_000)), ("Last-Modified", F.date(90_000))]
        #expect(lifetime(status: status, fields) == 0)
    }

    @Test(arguments: [302, 307, 500])
    func publicAllowsAHeuristicForOtherCodes(status: Int) {
        let fields = [("Date", F.date(100_000)), ("Last-Modified", F.date(90_000)), ("Cache-Control", "public")]
        #expect(lifetime(status: status, fields) == 1000)
    }

    @Test func heuristicWithoutDateUsesTheResponseTime() {
        #expect(lifetime([("Last-Modified", F.date(90_000))], responseTime: 100_000) == 1000)
        #expect(lifetime([("Last-Modified", F.date(90_000))], responseTime: 95_000) == 500)
    }

    @Test func noHeuristicWithoutLastModifiedOrWithAFutureOne() {
        #expect(lifetime([("Date", F.date(100_000))]) == 0)
        #expect(lifetime([("Date", F.date(100_000)), ("Last-Modified", F.date(100_500))]) == 0)
        #expect(lifetime([("Date", F.date(100_000)), ("Last-Modified", "garbage")]) == 0)
        #expect(lifetime([]) == 0)
    }

    @Test func theHeuristicFractionIsConfigurable() {
        var policy = CachePolicy()
        policy.heuristicFraction = 0.5
        #expect(policy.freshnessLifetime(F.head([("Date", F.date(100_000)), ("Last-Modified", F.date(90_000))])) == 5000)
        #expect(CachePolicy().heuristicFraction == 0.1)
    }

    @Test func heuristicHasNoUpperBound() {
        // The RFC leaves the cap to the implementation; this one applies none: a year-old
        // Last-Modified gives ~36.5 days of freshness.
        let year = 365 * 86400
        let fields = [("Date", F.date(Int64(2 * year))), ("Last-Modified", F.date(Int64(year)))]
        #expect(lifetime(fields) == Double(year) / 10)
    }

    @Test func explicitFreshnessDisablesTheHeuristic() {
        let base = [("Date", F.date(100_000)), ("Last-Modified", F.date(90_000))]
        #expect(lifetime(base + [("Cache-Control", "max-age=5")]) == 5)
        #expect(lifetime(base + [("Expires", F.date(100_020))]) == 20)
        #expect(lifetime(base + [("Cache-Control", "max-age=0")]) == 0)
    }

    // MARK: Invalid and duplicated max-age

    @Test(arguments: ["max-age=abc", "max-age=-1", "max-age=1.5", "max-age=", "max-age", "max-age=10s", "max-age=0x10"])
    func invalidMaxAgeMeansStale(directive: String) {
        // §4.2.1: a response with invalid freshness information is best considered stale; the invalid
        // max-age still overrides a valid Expires and the heuristic.
        let fields = [
            ("Cache-Control", directive), ("Date", F.date(100_000)), ("Expires", F.date(200_000)),
            ("Last-Modified", F.date(0)),
        ]
        #expect(lifetime(fields) == 0)
    }

    @Test func invalidSharedMaxAgeMeansStaleInASharedCache() {
        let fields = [("Cache-Control", "s-maxage=soon, max-age=600")]
        #expect(lifetime(F.sharedCache, fields) == 0)
        #expect(lifetime(F.privateCache, fields) == 600)
    }

    @Test func quotedMaxAgeIsAccepted() {
        #expect(lifetime([("Cache-Control", "max-age=\"60\"")]) == 60)
    }

    @Test func duplicatedMaxAgeUsesTheFirst() {
        #expect(lifetime([("Cache-Control", "max-age=60, max-age=3600")]) == 60)
        #expect(lifetime([("Cache-Control", "max-age=3600"), ("Cache-Control", "max-age=60")]) == 3600)
        #expect(lifetime([("Cache-Control", "max-age=bad, max-age=3600")]) == 0)
    }

    @Test func overflowingMaxAgeIsAVeryLargeValue() {
        // §1.2.2: treat as 2^31 or the greatest representable integer; this code uses Int32.max.
        #expect(lifetime([("Cache-Control", "max-age=99999999999999999999999")]) == 2_147_483_647)
        #expect(lifetime([("Cache-Control", "max-age=3000000000")]) == 3_000_000_000)
    }
}
