import MirrorCache
import NIOHTTP1
import Testing

/// RFC 9111 §5.2.2: response directives, as applied by `reuse` and `canServeStaleOnError`
/// (with §4.2.4: serving stale responses, and RFC 5861 stale-if-error).
///
/// Stored responses are requested and received at t=1000 with `Date` 1000, so their age at
/// `now` is `now − 1000`.
@Suite("Policy: §5.2.2 response directives")
struct PolicyResponseDirectiveTests {
    typealias F = PolicyFixture

    func stored(_ cacheControl: String) -> CachedResponseHead {
        F.head([("Date", F.date(1000)), ("Cache-Control", cacheControl)])
    }

    func reuse(
        _ cacheControl: String, request: [(String, String)] = [], at now: Double,
        _ policy: CachePolicy = F.privateCache
    ) -> ReuseDecision {
        policy.reuse(stored(cacheControl), request: F.headers(request), now: now, mode: .standard)
    }

    // MARK: no-cache (§5.2.2.4)

    @Test(arguments: ["max-age=100, no-cache", "no-cache", "no-cache=\"Set-Cookie\", max-age=100", "NO-CACHE, max-age=100"])
    func noCacheForcesValidationOfAFreshResponse(cacheControl: String) {
        #expect(reuse(cacheControl, at: 1010) == .validate)
        #expect(reuse(cacheControl, at: 1010, F.sharedCache) == .validate)
        #expect(reuse(cacheControl, request: [("Cache-Control", "max-stale")], at: 1010) == .validate)
    }

    @Test func responsePragmaIsNotNoCache() {
        let head = F.head([("Date", F.date(1000)), ("Cache-Control", "max-age=100"), ("Pragma", "no-cache")])
        #expect(F.privateCache.reuse(head, request: [:], now: 1010, mode: .standard) == .serve(age: 10, stale: false))
    }

    // MARK: must-revalidate (§5.2.2.2)

    @Test func mustRevalidateServesWhileFresh() {
        #expect(reuse("max-age=100, must-revalidate", at: 1050) == .serve(age: 50, stale: false))
    }

    @Test func mustRevalidateBlocksMaxStale() {
        #expect(reuse("max-age=100", request: [("Cache-Control", "max-stale")], at: 1200) == .serve(age: 200, stale: true))
        #expect(reuse("max-age=100, must-revalidate", request: [("Cache-Control", "max-stale")], at: 1200) == .validate)
        #expect(
            reuse(
                "max-age=100, must-revalidate", request: [("Cache-Control", "max-stale=500")], at: 1200,
                F.sharedCache) == .validate)
    }

    // MARK: proxy-revalidate (§5.2.2.8) and s-maxage (§5.2.2.10): shared caches only

    @Test func proxyRevalidateBlocksMaxStaleOnlyInASharedCache() {
        let request = [("Cache-Control", "max-stale")]
        #expect(reuse("max-age=100, proxy-revalidate", request: request, at: 1200, F.sharedCache) == .validate)
        #expect(
            reuse("max-age=100, proxy-revalidate", request: request, at: 1200, F.privateCache)
                == .serve(age: 200, stale: true))
    }

    @Test func sharedMaxAgeImpliesProxyRevalidate() {
        let request = [("Cache-Control", "max-stale")]
        #expect(reuse("max-age=100, s-maxage=100", request: request, at: 1200, F.sharedCache) == .validate)
        #expect(
            reuse("max-age=100, s-maxage=100", request: request, at: 1200, F.privateCache)
                == .serve(age: 200, stale: true))
    }

    @Test func sharedMaxAgeGivesTheLifetimeOnlyInASharedCache() {
        #expect(reuse("max-age=100, s-maxage=300", at: 1200, F.sharedCache) == .serve(age: 200, stale: false))
        #expect(reuse("max-age=100, s-maxage=300", at: 1200, F.privateCache) == .validate)
        #expect(reuse("max-age=300, s-maxage=100", at: 1200, F.sharedCache) == .validate)
        #expect(reuse("max-age=300, s-maxage=100", at: 1200, F.privateCache) == .serve(age: 200, stale: false))
    }

    // MARK: Other directives do not change reuse

    @Test(arguments: ["public", "private", "immutable", "no-transform", "must-understand"])
    func otherDirectivesKeepNormalFreshness(directive: String) {
        #expect(reuse("max-age=100, \(directive)", at: 1050) == .serve(age: 50, stale: false))
        #expect(reuse("max-age=100, \(directive)", at: 1150) == .validate)
    }

    // MARK: stale-if-error (RFC 5861 §4, RFC 9111 §4.2.4)

    func staleOnError(
        _ cacheControl: String, request: [(String, String)] = [], at now: Double,
        _ policy: CachePolicy = F.privateCache
    ) -> Bool {
        policy.canServeStaleOnError(stored(cacheControl), request: F.headers(request), now: now)
    }

    @Test(arguments: [(1150.0, true), (1160, true), (1161, false), (5000, false)])
    func responseStaleIfErrorLimitsStaleness(now: Double, expected: Bool) {
        // Lifetime 100; stale-if-error=60 covers up to 60 seconds past it.
        #expect(staleOnError("max-age=100, stale-if-error=60", at: now) == expected)
        #expect(staleOnError("max-age=100, stale-if-error=60", at: now, F.sharedCache) == expected)
    }

    @Test func requestStaleIfErrorAlsoAllowsIt() {
        #expect(staleOnError("max-age=100", request: [("Cache-Control", "stale-if-error=100")], at: 1190))
        #expect(!staleOnError("max-age=100", request: [("Cache-Control", "stale-if-error=100")], at: 1201))
    }

    @Test func theLargerOfRequestAndResponseStaleIfErrorApplies() {
        let request = [("Cache-Control", "stale-if-error=10")]
        #expect(staleOnError("max-age=100, stale-if-error=300", request: request, at: 1350))
        #expect(!staleOnError("max-age=100, stale-if-error=300", request: request, at: 1401))
    }

    @Test func withoutStaleIfErrorAStaleResponseIsNotServedOnError() {
        #expect(!staleOnError("max-age=100", at: 1101))
        #expect(!staleOnError("max-age=100", request: [("Cache-Control", "max-stale")], at: 1101))
    }

    @Test(arguments: ["must-revalidate", "no-cache"])
    func mustRevalidateAndNoCacheBlockStaleIfError(directive: String) {
        // §4.2.4: a cache MUST NOT generate a stale response if an in-protocol directive prohibits it.
        #expect(!staleOnError("max-age=100, stale-if-error=600, \(directive)", at: 1150))
        #expect(!staleOnError("max-age=100, \(directive)", request: [("Cache-Control", "stale-if-error=600")], at: 1150))
        #expect(!staleOnError("max-age=100, stale-if-error=600, \(directive)", at: 1150, F.sharedCache))
    }

    @Test func proxyRevalidateBlocksStaleIfErrorOnlyInASharedCache() {
        #expect(!staleOnError("max-age=100, stale-if-error=600, proxy-revalidate", at: 1150, F.sharedCache))
        #expect(staleOnError("max-age=100, stale-if-error=600, proxy-revalidate", at: 1150, F.privateCache))
    }

    @Test func sharedMaxAgeBlocksStaleIfErrorOnlyInASharedCache() {
        // §4.2.4: "an applicable s-maxage" prohibits serving stale; §5.2.2.10: s-maxage implies proxy-revalidate.
        #expect(!staleOnError("max-age=100, s-maxage=100, stale-if-error=600", at: 1150, F.sharedCache))
        #expect(staleOnError("max-age=100, s-maxage=100, stale-if-error=600", at: 1150, F.privateCache))
    }

    @Test func invalidStaleIfErrorAllowsNoStaleness() {
        #expect(!staleOnError("max-age=100, stale-if-error=forever", at: 1101))
    }

    // MARK: stale-while-revalidate (RFC 5861 §3)

    /// Within its window a stale response is served while it is validated; after the window,
    /// or when a directive asks for validation, it is validated first.
    @Test func staleWhileRevalidateServesWithinItsWindow() {
        #expect(reuse("max-age=100, stale-while-revalidate=60", at: 1050) == .serve(age: 50, stale: false))
        #expect(reuse("max-age=100, stale-while-revalidate=60", at: 1150) == .serveWhileRevalidating(age: 150))
        #expect(reuse("max-age=100, stale-while-revalidate=60", at: 1170) == .validate)
        #expect(reuse("max-age=100, stale-while-revalidate=60, must-revalidate", at: 1150) == .validate)
        #expect(reuse("max-age=100, stale-while-revalidate=60, no-cache", at: 1150) == .validate)
        #expect(reuse("max-age=100, stale-while-revalidate=60, proxy-revalidate", at: 1150, F.sharedCache) == .validate)
        #expect(reuse("max-age=100, s-maxage=100, stale-while-revalidate=60", at: 1150, F.sharedCache) == .validate)
        #expect(reuse("max-age=100, stale-while-revalidate=60, proxy-revalidate", at: 1150) == .serveWhileRevalidating(age: 150))
    }
}
