import MirrorCache
import NIOHTTP1
import Testing

/// `CacheMode`: the tool's modes layered over RFC 9111 reuse.
@Suite("Policy: cache modes")
struct PolicyModeTests {
    typealias F = PolicyFixture

    /// Received at 1000, fresh for 100 seconds.
    static let fresh100 = PolicyFixture.head([("Date", PolicyFixture.date(1000)), ("Cache-Control", "max-age=100")])
    /// Received at 1000, must always be validated.
    static let noCache = PolicyFixture.head([("Date", PolicyFixture.date(1000)), ("Cache-Control", "no-cache")])

    // MARK: .standard

    @Test func standardFollowsTheRFC() {
        #expect(F.privateCache.reuse(Self.fresh100, request: [:], now: 1050, mode: .standard) == .serve(age: 50, stale: false))
        #expect(F.privateCache.reuse(Self.fresh100, request: [:], now: 1150, mode: .standard) == .validate)
        #expect(F.privateCache.reuse(Self.noCache, request: [:], now: 1000, mode: .standard) == .validate)
    }

    // MARK: .offline

    @Test(arguments: [1000.0, 1050, 1150, 1_000_000])
    func offlineServesAnythingWithItsTrueStaleness(now: Double) {
        let expected = ReuseDecision.serve(age: now - 1000, stale: now - 1000 >= 100)
        #expect(F.privateCache.reuse(Self.fresh100, request: [:], now: now, mode: .offline) == expected)
        #expect(F.sharedCache.reuse(Self.fresh100, request: [:], now: now, mode: .offline) == expected)
    }

    @Test func offlineIgnoresEveryDirective() {
        let strict = F.head([("Date", F.date(1000)), ("Cache-Control", "no-cache, must-revalidate, proxy-revalidate, s-maxage=0")])
        let request = F.headers([("Cache-Control", "no-cache, max-age=0, min-fresh=600"), ("Pragma", "no-cache")])
        #expect(F.sharedCache.reuse(strict, request: request, now: 1500, mode: .offline) == .serve(age: 500, stale: true))
        #expect(F.privateCache.reuse(Self.noCache, request: [:], now: 1000, mode: .offline) == .serve(age: 0, stale: true))
    }

    @Test func offlineServesEvenAnOnlyIfCachedRequestThatCouldNotBeSatisfiedOtherwise() {
        let request = F.headers([("Cache-Control", "only-if-cached")])
        #expect(F.privateCache.reuse(Self.fresh100, request: request, now: 1200, mode: .standard) == .unsatisfiable)
        #expect(F.privateCache.reuse(Self.fresh100, request: request, now: 1200, mode: .offline) == .serve(age: 200, stale: true))
    }

    // MARK: .refresh

    @Test(arguments: [1000.0, 1001, 1050, 1_000_000])
    func refreshAlwaysValidates(now: Double) {
        #expect(F.privateCache.reuse(Self.fresh100, request: [:], now: now, mode: .refresh) == .validate)
        let immutable = F.head([("Date", F.date(1000)), ("Cache-Control", "public, max-age=31536000, immutable")])
        #expect(F.sharedCache.reuse(immutable, request: ["Cache-Control": "max-stale"], now: now, mode: .refresh) == .validate)
    }

    // MARK: .maxAge

    @Test(arguments: [1000.0, 1500, 4599])
    func maxAgeServesYoungResponsesWhateverTheirHeaders(now: Double) {
        // 3600 s of "cache time": no-cache, max-age=0 and invalid Expires are all overridden.
        for head in [
            Self.noCache,
            F.head([("Cache-Control", "max-age=0, must-revalidate")]),
            F.head([("Expires", "0")]),
        ] {
            #expect(F.privateCache.reuse(head, request: [:], now: now, mode: .maxAge(3600)) == .serve(age: now - 1000, stale: true))
        }
        #expect(
            F.privateCache.reuse(Self.noCache, request: ["Cache-Control": "no-cache"], now: now, mode: .maxAge(3600))
                == .serve(age: now - 1000, stale: true))
    }

    @Test func maxAgeReportsFreshnessTruthfully() {
        #expect(F.privateCache.reuse(Self.fresh100, request: [:], now: 1050, mode: .maxAge(3600)) == .serve(age: 50, stale: false))
        #expect(F.privateCache.reuse(Self.fresh100, request: [:], now: 1150, mode: .maxAge(3600)) == .serve(age: 150, stale: true))
    }

    @Test(arguments: [4600.0, 5000, 100_000])
    func maxAgeFallsBackToStandardForOlderResponses(now: Double) {
        #expect(F.privateCache.reuse(Self.noCache, request: [:], now: now, mode: .maxAge(3600)) == .validate)
        #expect(F.privateCache.reuse(Self.fresh100, request: [:], now: now, mode: .maxAge(3600)) == .validate)
        let longLived = F.head([("Date", F.date(1000)), ("Cache-Control", "max-age=1000000")])
        #expect(F.privateCache.reuse(longLived, request: [:], now: now, mode: .maxAge(3600)) == .serve(age: now - 1000, stale: false))
        #expect(
            F.privateCache.reuse(
                longLived, request: ["Cache-Control": "only-if-cached, no-cache"], now: now,
                mode: .maxAge(3600)) == .unsatisfiable)
    }

    @Test func maxAgeMeasuresTimeInTheCacheNotTheAgeHeader() {
        // The limit is compared with the time since this cache received the response; an upstream
        // Age still shows in the reported age.
        let head = F.head([("Date", F.date(1000)), ("Age", "7200"), ("Cache-Control", "max-age=60")])
        #expect(F.privateCache.reuse(head, request: [:], now: 1010, mode: .maxAge(3600)) == .serve(age: 7210, stale: true))
        #expect(F.privateCache.reuse(head, request: [:], now: 1010, mode: .standard) == .validate)
    }

    @Test func maxAgeZeroIsStandard() {
        #expect(F.privateCache.reuse(Self.noCache, request: [:], now: 1000, mode: .maxAge(0)) == .validate)
        #expect(F.privateCache.reuse(Self.fresh100, request: [:], now: 1000, mode: .maxAge(0)) == .serve(age: 0, stale: false))
    }

    @Test func fractionalMaxAge() {
        #expect(F.privateCache.reuse(Self.noCache, request: [:], now: 1000.25, mode: .maxAge(0.5)) == .serve(age: 0.25, stale: true))
        #expect(F.privateCache.reuse(Self.noCache, request: [:], now: 1000.5, mode: .maxAge(0.5)) == .validate)
    }
}
