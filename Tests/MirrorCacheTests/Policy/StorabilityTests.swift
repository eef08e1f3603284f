import MirrorCache
import NIOHTTP1
import Testing

/// RFC 9111 §3: Storing Responses in Caches.
@Suite("Policy: §3 storability")
struct PolicyStorabilityTests {
    typealias F = PolicyFixture

    func canStore(
        _ policy: CachePolicy = F.privateCache, method: HTTPMethod = .GET, request: [(String, String)] = [],
        status: Int = 200, response: [(String, String)] = []
    ) -> Bool {
        policy.canStore(method: method, request: F.headers(request), status: status, response: F.headers(response))
    }

    // MARK: Methods

    @Test func getWithExplicitFreshnessIsStorable() {
        #expect(canStore(method: .GET, response: [("Cache-Control", "max-age=60")]))
        #expect(canStore(F.sharedCache, method: .GET, response: [("Cache-Control", "max-age=60")]))
    }

    @Test(arguments: [HTTPMethod.HEAD, .POST, .PUT, .DELETE, .PATCH, .OPTIONS])
    func otherMethodsAreNotStored(method: HTTPMethod) {
        #expect(!canStore(method: method, response: [("Cache-Control", "public, max-age=60")]))
    }

    // MARK: Status codes

    @Test(arguments: [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501])
    func heuristicallyCacheableCodesNeedNoExplicitFreshness(status: Int) {
        #expect(canStore(status: status))
        #expect(canStore(F.sharedCache, status: status))
    }

    @Test(arguments: [302, 303, 307, 400, 403, 500, 502, 503, 504])
    func otherCodesNeedExplicitFreshness(status: Int) {
        #expect(!canStore(status: status))
        #expect(!canStore(status: status, response: [("Date", F.date(1000))]))
        #expect(canStore(status: status, response: [("Cache-Control", "max-age=60")]))
        #expect(canStore(status: status, response: [("Expires", F.date(2000))]))
        #expect(canStore(status: status, response: [("Cache-Control", "public")]))
    }

    @Test func redirect302WithLastModifiedOnlyIsNotStored() {
        // Last-Modified enables heuristics only for heuristically cacheable codes.
        #expect(!canStore(status: 302, response: [("Last-Modified", F.date(0)), ("Location", "/b")]))
        #expect(canStore(status: 301, response: [("Last-Modified", F.date(0)), ("Location", "/b")]))
    }

    @Test func invalidExpiresStillCountsAsExplicitExpiration() {
        // §3: "contains an Expires header field" - its validity only matters for freshness (§5.3).
        #expect(canStore(status: 302, response: [("Expires", "0")]))
    }

    @Test(arguments: [206, 304])
    func partialAndNotModifiedResponsesAreNotStoredAsEntries(status: Int) {
        #expect(!canStore(status: status, response: [("Cache-Control", "public, max-age=600"), ("ETag", "\"a\"")]))
    }

    @Test(arguments: [100, 101, 103])
    func informationalResponsesAreNotStored(status: Int) {
        #expect(!canStore(status: status, response: [("Cache-Control", "max-age=600")]))
    }

    // MARK: no-store

    @Test func noStoreInTheResponseForbidsStoring() {
        #expect(!canStore(response: [("Cache-Control", "no-store")]))
        #expect(!canStore(response: [("Cache-Control", "public, max-age=600, no-store")]))
        #expect(!canStore(response: [("Cache-Control", "max-age=600"), ("Cache-Control", "No-Store")]))
        #expect(!canStore(F.sharedCache, response: [("Cache-Control", "no-store")]))
    }

    @Test func noStoreInTheRequestForbidsStoring() {
        #expect(!canStore(request: [("Cache-Control", "no-store")], response: [("Cache-Control", "max-age=600")]))
        #expect(!canStore(F.sharedCache, request: [("Cache-Control", "NO-STORE")], response: [("Cache-Control", "public")]))
    }

    @Test func noCacheIsNotNoStore() {
        #expect(canStore(response: [("Cache-Control", "no-cache")]))
        #expect(canStore(request: [("Cache-Control", "no-cache")], response: [("Cache-Control", "max-age=60")]))
    }

    // MARK: private

    @Test func privateIsStoredByAPrivateCacheOnly() {
        #expect(canStore(F.privateCache, response: [("Cache-Control", "private, max-age=60")]))
        #expect(!canStore(F.sharedCache, response: [("Cache-Control", "private, max-age=60")]))
        #expect(!canStore(F.sharedCache, response: [("Cache-Control", "Private")]))
    }

    @Test func privateIsExplicitPermissionForAPrivateCache() {
        // §3: "the private response directive, if the cache is not shared".
        #expect(canStore(F.privateCache, status: 302, response: [("Cache-Control", "private")]))
        #expect(!canStore(F.sharedCache, status: 302, response: [("Cache-Control", "private")]))
    }

    @Test func sharedMaxAgeIsExplicitFreshnessOnlyForASharedCache() {
        #expect(canStore(F.sharedCache, status: 302, response: [("Cache-Control", "s-maxage=60")]))
        #expect(!canStore(F.privateCache, status: 302, response: [("Cache-Control", "s-maxage=60")]))
    }

    // MARK: Authorization (§3.5)

    @Test func authorizedResponsesAreNotStoredBySharedCachesByDefault() {
        let auth = [("Authorization", "Bearer abc")]
        #expect(!canStore(F.sharedCache, request: auth))
        #expect(!canStore(F.sharedCache, request: auth, response: [("Cache-Control", "max-age=600")]))
        #expect(!canStore(F.sharedCache, request: [("authorization", "Basic eDp5")], response: [("Expires", F.date(5000))]))
    }

    @Test(arguments: ["public", "s-maxage=60", "must-revalidate", "max-age=60, must-revalidate", "PUBLIC"])
    func authorizedResponsesMayBeStoredWhenExplicitlyAllowed(directives: String) {
        #expect(
            canStore(
                F.sharedCache, request: [("Authorization", "Bearer abc")],
                response: [("Cache-Control", directives)]))
    }

    @Test func authorizationDoesNotConcernPrivateCaches() {
        #expect(canStore(F.privateCache, request: [("Authorization", "Bearer abc")]))
        #expect(canStore(F.privateCache, request: [("Authorization", "Bearer abc")], response: [("Cache-Control", "max-age=60")]))
    }

    @Test func authorizedResponsesStillObeyNoStoreAndPrivate() {
        let auth = [("Authorization", "Bearer abc")]
        #expect(!canStore(F.sharedCache, request: auth, response: [("Cache-Control", "public, no-store")]))
        #expect(!canStore(F.sharedCache, request: auth, response: [("Cache-Control", "private, s-maxage=60")]))
    }

    // MARK: must-understand (§5.2.2.3)

    @Test func mustUnderstandOverridesNoStoreForUnderstoodCodes() {
        #expect(canStore(response: [("Cache-Control", "no-store, must-understand, max-age=60")]))
        #expect(canStore(status: 200, response: [("Cache-Control", "must-understand, no-store")]))
        #expect(canStore(status: 404, response: [("Cache-Control", "must-understand, no-store")]))
    }

    @Test(arguments: [218, 299, 418, 425, 599])
    func mustUnderstandForbidsStoringUnknownCodes(status: Int) {
        #expect(!canStore(status: status, response: [("Cache-Control", "must-understand, no-store, max-age=60")]))
        #expect(!canStore(status: status, response: [("Cache-Control", "must-understand, max-age=60")]))
        // Without must-understand an explicit freshness makes them storable.
        #expect(canStore(status: status, response: [("Cache-Control", "max-age=60")]))
    }

    @Test func mustUnderstandStillRequiresExplicitFreshnessOrAHeuristicCode() {
        #expect(!canStore(status: 302, response: [("Cache-Control", "must-understand, no-store")]))
        #expect(canStore(status: 302, response: [("Cache-Control", "must-understand, no-store, max-age=60")]))
    }

    @Test func mustUnderstandStillObeysPrivateAndRequestNoStore() {
        #expect(!canStore(F.sharedCache, response: [("Cache-Control", "must-understand, no-store, private")]))
        #expect(!canStore(request: [("Cache-Control", "no-store")], response: [("Cache-Control", "must-understand, no-store")]))
    }

    // MARK: Vary

    @Test(arguments: ["*", " * ", "Accept, *", "*, Accept-Encoding"])
    func varyStarIsNeverStored(vary: String) {
        #expect(!canStore(response: [("Cache-Control", "max-age=600"), ("Vary", vary)]))
    }

    @Test func varyStarOnASecondLineIsNeverStored() {
        #expect(!canStore(response: [("Cache-Control", "max-age=600"), ("Vary", "Accept"), ("Vary", "*")]))
    }

    @Test func varyWithFieldNamesIsStored() {
        #expect(canStore(response: [("Cache-Control", "max-age=600"), ("Vary", "Accept-Encoding, Accept-Language")]))
    }

    // MARK: Stored header fields (§3.1)

    @Test func storableHeadersStripHopByHopFields() {
        let stored = CachePolicy.storableHeaders(
            F.headers([
                ("Content-Type", "text/html"),
                ("Connection", "keep-alive"),
                ("Keep-Alive", "timeout=5"),
                ("Transfer-Encoding", "chunked"),
                ("TE", "trailers"),
                ("Upgrade", "h2c"),
                ("Trailer", "X-Checksum"),
                ("Proxy-Connection", "keep-alive"),
                ("Proxy-Authenticate", "Basic"),
                ("Proxy-Authorization", "Basic eDp5"),
                ("Proxy-Authentication-Info", "nextnonce=1"),
                ("ETag", "\"v1\""),
            ]))
        #expect(stored.map(\.name) == ["Content-Type", "ETag"])
        #expect(stored["content-type"] == ["text/html"])
        #expect(stored["etag"] == ["\"v1\""])
    }

    @Test func storableHeadersStripFieldsNamedByConnection() {
        let stored = CachePolicy.storableHeaders(
            F.headers([
                ("Connection", "close, X-Trace"),
                ("connection", "x-session-hint"),
                ("x-trace", "abc"),
                ("X-Session-Hint", "1"),
                ("X-Other", "kept"),
                ("Cache-Control", "max-age=60"),
            ]))
        #expect(stored.map(\.name) == ["X-Other", "Cache-Control"])
    }

    @Test func storableHeadersKeepRepeatedFieldsInOrderButNoSession() {
        let stored = CachePolicy.storableHeaders(
            F.headers([
                ("Set-Cookie", "a=1"), ("Connection", "close"), ("Set-Cookie", "b=2"), ("Link", "</a>"), ("Link", "</b>"),
            ]))
        #expect(stored["set-cookie"].isEmpty)
        #expect(stored["link"] == ["</a>", "</b>"])
        #expect(!stored.contains(name: "connection"))
    }
}
