import Foundation
import MirrorCore
import MirrorProxy
import MirrorTestSupport
import Testing

/// `mirror proxy` without `--upstream`: clients send absolute-form requests (http_proxy).
@Suite("mirror proxy: forward proxy")
struct ForwardProxyTests {
    @Test func absoluteFormRequestsGoThroughTheCache() async throws {
        let first = try await TestOrigin.start(), second = try await TestOrigin.start()
        for origin in [first, second] {
            origin.route("/page") { _ in .html("from \(origin.port)", headers: [("Cache-Control", "max-age=600")]) }
        }
        let proxy = try await ProxyHarness.start(ProxyConfiguration())
        for origin in [first, second, first] {
            let response = try await proxy.send(["GET \(origin.url("/page")) HTTP/1.1", "Host: \(origin.authority)",
                                                 "Proxy-Connection: keep-alive", "Connection: close"])
            #expect(response.text == "from \(origin.port)")
        }
        #expect(first.requests(path: "/page").count == 1 && second.requests(path: "/page").count == 1)
        #expect(first.requests.first?.header("proxy-connection") == nil)
        let originForm = try await proxy.request("GET", "/page")
        #expect(originForm.status == 400, "a forward proxy needs to know the host")
        #expect(originForm.text.contains("http_proxy"))
        await proxy.stop()
        try await first.shutdown()
        try await second.shutdown()
    }

    @Test func anUnreachableUpstreamIsA502ThatSaysWhy() async throws {
        let origin = try await TestOrigin.start()
        let url = origin.url("/gone")
        try await origin.shutdown()
        let proxy = try await ProxyHarness.start(ProxyConfiguration())
        let response = try await proxy.send(["GET \(url) HTTP/1.1", "Host: \(origin.authority)", "Connection: close"])
        #expect(response.status == 502)
        #expect(response.text.contains(url))
        await proxy.stop()
    }
}
