import MirrorCache
import NIOHTTP1
import Testing

/// RFC 9111 §5.2.1: request directives, as applied by `reuse` (§4.2, §4.2.4).
///
/// The stored response in every test: requested and received at t=1000, `Date` 1000,
/// `Cache-Control: max-age=100`. So at time `now` its age is `now − 1000`; fresh until 1100.
@Suite("Policy: §5.2.1 request directives")
struct PolicyRequestDirectiveTests {
    typealias F = PolicyFixture

    static let stored = PolicyFixture.head([("Date", PolicyFixture.date(1000)), ("Cache-Control", "max-age=100")])

    func reuse(
        _ request: [(String, String)], at now: Double, _ policy: CachePolicy = F.privateCache,
        stored: CachedResponseHead = stored
    ) -> ReuseDecision {
        policy.reuse(stored, request: F.headers(request), now: now, mode: .standard)
    }

    // MARK: Baseline (§4.2)

    @Test(arguments: [
        (1000.0, ReuseDecision.serve(age: 0, stale: false)), (1050, .serve(age: 50, stale: false)),
        (1099, .serve(age: 99, stale: false)), (1100, .validate), (1500, .validate),
    ])
    func freshIsServedStaleIsValidated(now: Double, expected: ReuseDecision) {
        #expect(reuse([], at: now) == expected)
        #expect(reuse([], at: now, F.sharedCache) == expected)
    }

    // MARK: no-cache (§5.2.1.4) and Pragma (§5.4)

    @Test(arguments: ["no-cache", "No-Cache", "max-age=3600, no-cache", "no-cache, max-stale"])
    func noCacheValidatesEvenAFreshResponse(directives: String) {
        #expect(reuse([("Cache-Control", directives)], at: 1010) == .validate)
        #expect(reuse([("Cache-Control", directives)], at: 1010, F.sharedCache) == .validate)
    }

    @Test func pragmaNoCacheWithoutCacheControlValidates() {
        #expect(reuse([("Pragma", "no-cache")], at: 1010) == .validate)
        #expect(reuse([("Pragma", "No-Cache")], at: 1010) == .validate)
    }

    @Test func pragmaIsIgnoredWhenCacheControlIsPresent() {
        #expect(reuse([("Pragma", "no-cache"), ("Cache-Control", "max-age=3600")], at: 1010) == .serve(age: 10, stale: false))
    }

    @Test func otherPragmaValuesAreIgnored() {
        #expect(reuse([("Pragma", "x-foo")], at: 1010) == .serve(age: 10, stale: false))
    }

    // MARK: max-age (§5.2.1.1)

    @Test func maxAgeZeroValidatesAnyResponseWithAge() {
        #expect(reuse([("Cache-Control", "max-age=0")], at: 1050) == .validate)
        #expect(reuse([("Cache-Control", "max-age=0")], at: 1001) == .validate)
    }

    @Test func maxAgeZeroAcceptsAResponseOfAgeZero() {
        // "prefers a response whose age is less than or equal to the specified number of seconds".
        #expect(reuse([("Cache-Control", "max-age=0")], at: 1000) == .serve(age: 0, stale: false))
    }

    @Test(arguments: [
        (60, ReuseDecision.serve(age: 50, stale: false)), (50, .serve(age: 50, stale: false)), (49, .validate),
        (10, .validate), (3600, .serve(age: 50, stale: false)),
    ])
    func maxAgeLimitsTheAgeOfAFreshResponse(maxAge: Int, expected: ReuseDecision) {
        #expect(reuse([("Cache-Control", "max-age=\(maxAge)")], at: 1050) == expected)
    }

    @Test func maxAgeDoesNotAcceptStaleResponses() {
        // Without max-stale a larger max-age does not extend the response's freshness.
        #expect(reuse([("Cache-Control", "max-age=3600")], at: 1200) == .validate)
    }

    @Test func invalidRequestMaxAgeActsAsZero() {
        #expect(reuse([("Cache-Control", "max-age=soon")], at: 1050) == .validate)
    }

    // MARK: max-stale (§5.2.1.2)

    @Test(arguments: [1200.0, 5000, 1_000_000])
    func maxStaleWithoutValueAcceptsAnyStaleness(now: Double) {
        #expect(reuse([("Cache-Control", "max-stale")], at: now) == .serve(age: now - 1000, stale: true))
    }

    @Test(arguments: [
        (1120.0, ReuseDecision.serve(age: 120, stale: true)), (1130, .serve(age: 130, stale: true)),
        (1131, .validate), (1100, .serve(age: 100, stale: true)),
    ])
    func maxStaleWithAValueLimitsStaleness(now: Double, expected: ReuseDecision) {
        // Lifetime 100; max-stale=30 accepts up to 30 seconds past it.
        #expect(reuse([("Cache-Control", "max-stale=30")], at: now) == expected)
    }

    @Test func maxStaleDoesNotMarkAFreshResponseStale() {
        #expect(reuse([("Cache-Control", "max-stale=30")], at: 1050) == .serve(age: 50, stale: false))
    }

    @Test func maxStaleCombinesWithMaxAge() {
        #expect(reuse([("Cache-Control", "max-age=200, max-stale")], at: 1150) == .serve(age: 150, stale: true))
        #expect(reuse([("Cache-Control", "max-age=200, max-stale")], at: 1250) == .validate)
    }

    @Test func maxStaleCannotOverrideResponseNoCache() {
        let stored = F.head([("Date", F.date(1000)), ("Cache-Control", "max-age=100, no-cache")])
        #expect(reuse([("Cache-Control", "max-stale")], at: 1200, stored: stored) == .validate)
    }

    // MARK: min-fresh (§5.2.1.3)

    @Test(arguments: [
        (1050.0, ReuseDecision.serve(age: 50, stale: false)), (1070, .serve(age: 70, stale: false)),
        (1071, .validate), (1080, .validate), (1200, .validate),
    ])
    func minFreshNeedsThatMuchFreshnessLeft(now: Double, expected: ReuseDecision) {
        #expect(reuse([("Cache-Control", "min-fresh=30")], at: now) == expected)
    }

    @Test func minFreshZeroChangesNothing() {
        #expect(reuse([("Cache-Control", "min-fresh=0")], at: 1099) == .serve(age: 99, stale: false))
    }

    // MARK: only-if-cached (§5.2.1.7)

    @Test func onlyIfCachedServesAFreshResponse() {
        #expect(reuse([("Cache-Control", "only-if-cached")], at: 1050) == .serve(age: 50, stale: false))
    }

    @Test func onlyIfCachedIsUnsatisfiableWhenValidationWouldBeNeeded() {
        #expect(reuse([("Cache-Control", "only-if-cached")], at: 1200) == .unsatisfiable)
        #expect(reuse([("Cache-Control", "only-if-cached, no-cache")], at: 1050) == .unsatisfiable)
        #expect(reuse([("Cache-Control", "only-if-cached, max-age=10")], at: 1050) == .unsatisfiable)
        #expect(reuse([("Cache-Control", "only-if-cached, min-fresh=60")], at: 1050) == .unsatisfiable)
        #expect(reuse([("Cache-Control", "only-if-cached")], at: 1200, F.sharedCache) == .unsatisfiable)
    }

    @Test func onlyIfCachedWithMaxStaleServesTheStaleResponse() {
        #expect(reuse([("Cache-Control", "only-if-cached, max-stale")], at: 1200) == .serve(age: 200, stale: true))
        #expect(reuse([("Cache-Control", "only-if-cached, max-stale=10")], at: 1200) == .unsatisfiable)
    }

    @Test func onlyIfCachedIsUnsatisfiableWhenTheResponseDemandsValidation() {
        let noCache = F.head([("Date", F.date(1000)), ("Cache-Control", "max-age=100, no-cache")])
        #expect(reuse([("Cache-Control", "only-if-cached")], at: 1010, stored: noCache) == .unsatisfiable)
        let mustRevalidate = F.head([("Date", F.date(1000)), ("Cache-Control", "max-age=100, must-revalidate")])
        #expect(reuse([("Cache-Control", "only-if-cached, max-stale")], at: 1200, stored: mustRevalidate) == .unsatisfiable)
    }

    // MARK: no-store (§5.2.1.5) does not affect reuse

    @Test func noStoreInTheRequestDoesNotPreventServingAFreshResponse() {
        #expect(reuse([("Cache-Control", "no-store")], at: 1050) == .serve(age: 50, stale: false))
    }
}
