import MirrorCache
import NIOHTTP1
import Testing

/// RFC 9111 §4.4: invalidating stored responses after unsafe requests.
@Suite("Policy: §4.4 invalidation")
struct PolicyInvalidationTests {
    typealias F = PolicyFixture

    static let target = "http://example.test/items/1"

    func invalidated(
        _ method: HTTPMethod, status: Int = 200, _ response: [(String, String)] = [],
        url: String = target
    ) -> [String] {
        F.privateCache.invalidatedURLs(method: method, status: status, url: url, response: F.headers(response))
    }

    @Test(arguments: [HTTPMethod.POST, .PUT, .DELETE, .PATCH], [200, 201, 204, 299, 301, 303, 307, 399])
    func unsafeMethodsWithNonErrorStatusInvalidateTheTarget(method: HTTPMethod, status: Int) {
        #expect(invalidated(method, status: status) == [Self.target])
        #expect(F.sharedCache.invalidatedURLs(method: method, status: status, url: Self.target, response: [:]) == [Self.target])
    }

    @Test func methodsOfUnknownSafetyInvalidate() {
        #expect(invalidated(.RAW(value: "PURGE")) == [Self.target])
        #expect(invalidated(.MKCOL, status: 201) == [Self.target])
    }

    @Test(arguments: [HTTPMethod.POST, .PUT, .DELETE], [400, 401, 404, 409, 500, 502, 503])
    func errorsDoNotInvalidate(method: HTTPMethod, status: Int) {
        #expect(invalidated(method, status: status, [("Location", "/items/2")]).isEmpty)
    }

    @Test(arguments: [100, 101])
    func informationalResponsesDoNotInvalidate(status: Int) {
        #expect(invalidated(.POST, status: status).isEmpty)
    }

    @Test(arguments: [HTTPMethod.GET, .HEAD, .OPTIONS, .TRACE])
    func safeMethodsDoNotInvalidate(method: HTTPMethod) {
        #expect(invalidated(method, status: 200, [("Location", "/items/2"), ("Content-Location", "/items/3")]).isEmpty)
    }

    @Test func sameOriginLocationIsInvalidated() {
        #expect(
            invalidated(.POST, status: 201, [("Location", "/items/2")])
                == [Self.target, "http://example.test/items/2"])
        #expect(
            invalidated(.POST, status: 303, [("Location", "http://example.test/list?page=1")])
                == [Self.target, "http://example.test/list?page=1"])
    }

    @Test func sameOriginContentLocationIsInvalidated() {
        #expect(invalidated(.PUT, [("Content-Location", "/items/1/v2")]) == [Self.target, "http://example.test/items/1/v2"])
    }

    @Test func bothLocationAndContentLocation() {
        let urls = invalidated(.POST, status: 201, [("Content-Location", "/items/3"), ("Location", "/items/2")])
        #expect(Set(urls) == [Self.target, "http://example.test/items/2", "http://example.test/items/3"])
        #expect(urls.count == 3)
        #expect(urls.first == Self.target)
    }

    @Test func relativeReferencesResolveAgainstTheTarget() {
        #expect(invalidated(.DELETE, [("Location", "../list")]) == [Self.target, "http://example.test/list"])
        #expect(invalidated(.DELETE, [("Location", "2")]) == [Self.target, "http://example.test/items/2"])
    }

    @Test func hostComparisonIsCaseInsensitive() {
        let urls = invalidated(.POST, status: 201, [("Location", "http://EXAMPLE.test/items/9")])
        #expect(urls.count == 2)
        #expect(urls.last?.lowercased() == "http://example.test/items/9")
    }

    @Test(arguments: [
        "http://other.test/items/2",  // other host
        "https://example.test/items/2",  // other scheme
        "http://example.test:8080/items/2",  // other port
        "//other.test/items/2",  // scheme-relative, other host
        "http://sub.example.test/items/2",  // subdomain
    ])
    func crossOriginLocationsAreNotInvalidated(location: String) {
        #expect(invalidated(.POST, status: 201, [("Location", location)]) == [Self.target])
        #expect(invalidated(.PUT, [("Content-Location", location)]) == [Self.target])
    }

    @Test func explicitPortsOnTheTargetMustMatch() {
        let target = "http://example.test:8080/a"
        #expect(
            invalidated(.POST, [("Location", "http://example.test:8080/b")], url: target)
                == [target, "http://example.test:8080/b"])
        #expect(invalidated(.POST, [("Location", "/b")], url: target) == [target, "http://example.test:8080/b"])
        #expect(invalidated(.POST, [("Location", "http://example.test:9090/b")], url: target) == [target])
    }
}
