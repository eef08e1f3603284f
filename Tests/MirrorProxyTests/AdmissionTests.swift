import Foundation
import MirrorCache
import MirrorCore
import MirrorProxy
import MirrorTestSupport
import Testing

/// The seeds' admission rules: what is outside them passes through uncached; ignored
/// parameters leave the cache key but still reach the origin.
@Suite("mirror proxy: admission rules")
struct AdmissionTests {
    @Test func ignoredParametersLeaveTheKeyNotTheRequest() async throws {
        let origin = try await TestOrigin.start()
        origin.route("/page") { request in .html("for \(request.query ?? "")", headers: [("Cache-Control", "max-age=600")]) }
        let proxy = try await ProxyHarness.reverse(origin) { $0.cache.admission.ignoredParameters = ["utm_*", "_"] }
        let first = try await proxy.request("GET", "/page?id=1&utm_source=mail&_=123")
        #expect(first.text == "for id=1&utm_source=mail&_=123")
        let second = try await proxy.request("GET", "/page?utm_medium=web&id=1&_=456")
        #expect(second.header("cache-status") == "mirror; hit", "only id=1 is in the key; order is kept, so it must be first")
        let other = try await proxy.request("GET", "/page?id=2&utm_source=mail")
        #expect(other.text == "for id=2&utm_source=mail")
        let notIgnored = try await proxy.request("GET", "/page?id=1&utmost=1")
        #expect(notIgnored.header("cache-status")?.contains("fwd=uri-miss") == true)
        #expect(
            origin.requests(path: "/page").map { $0.query ?? "" } == [
                "id=1&utm_source=mail&_=123", "id=2&utm_source=mail", "id=1&utmost=1",
            ])
        await proxy.stop()
        try await origin.shutdown()
    }

    @Test func requestsOutsideTheRulesPassUncached() async throws {
        let origin = try await TestOrigin.start()
        origin.route("/app/page") { _ in .html("app", headers: [("Cache-Control", "max-age=600")]) }
        origin.route("/other") { _ in .html("other", headers: [("Cache-Control", "max-age=600")]) }
        let proxy = try await ProxyHarness.reverse(origin) { configuration in
            configuration.cache.admission.urlPatterns = [try! URLPattern("/app/")]
            configuration.cache.admission.userAgentSuffixes = [" MirrorWebView"]
        }
        let agent = "User-Agent: Mozilla/5.0 MirrorWebView"
        for _ in 0..<2 {
            _ = try await proxy.request("GET", "/app/page", headers: [agent])
            _ = try await proxy.request("GET", "/app/page", headers: ["User-Agent: curl/8.5"])
            let other = try await proxy.request("GET", "/other", headers: [agent])
            #expect(other.header("cache-status") == "mirror; fwd=bypass; fwd-status=200")
        }
        #expect(origin.requests(path: "/app/page").count == 3, "one stored for the web view, two for curl")
        #expect(origin.requests(path: "/other").count == 2)
        await proxy.stop()
        try await origin.shutdown()
    }

    @Test func onlyAllowedHostsAreCached() async throws {
        let allowed = try await TestOrigin.start()
        let other = try await TestOrigin.start()
        for origin in [allowed, other] { origin.route("/page") { _ in .html("p", headers: [("Cache-Control", "max-age=600")]) } }
        var configuration = ProxyConfiguration()
        configuration.cache.admission.hosts = [try #require(HostPattern(allowed.authority))]
        let proxy = try await ProxyHarness.start(configuration)
        for _ in 0..<2 {
            for origin in [allowed, other] {
                _ = try await proxy.send(["GET \(origin.url("/page")) HTTP/1.1", "Host: \(origin.authority)", "Connection: close"])
            }
        }
        #expect(allowed.requests(path: "/page").count == 1)
        #expect(other.requests(path: "/page").count == 2)
        await proxy.stop()
        try await allowed.shutdown()
        try await other.shutdown()
    }
}
