import Foundation
import MirrorCore
import MirrorHTTP
import MirrorProxy
import MirrorTestSupport
import Testing

/// `mirror proxy` without `--upstream`: clients send absolute-form requests (http_proxy).
@Suite("mirror proxy: forward proxy")
struct ForwardProxyTests {
    @Test func absoluteFormRequestsGoThroughTheCache() async throws {
        let first = try await TestOrigin.start()
        let second = try await TestOrigin.start()
        for origin in [first, second] {
            origin.route("/page") { _ in .html("from \(origin.port)", headers: [("Cache-Control", "max-age=600")]) }
        }
        let proxy = try await ProxyHarness.start(ProxyConfiguration())
        for origin in [first, second, first] {
            let response = try await proxy.send([
                "GET \(origin.url("/page")) HTTP/1.1", "Host: \(origin.authority)",
                "Proxy-Connection: keep-alive", "Connection: close",
            ])
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

    /// A request for the proxy's own address would come back to it forever; its own `Via` entry
    /// gives it away on the first return, and the client gets a 508 that says so.
    @Test func aRequestThatLoopsBackToTheProxyIsA508() async throws {
        let proxy = try await ProxyHarness.start(ProxyConfiguration())
        let own = "http://127.0.0.1:\(proxy.port)/again"
        let response = try await proxy.send(["GET \(own) HTTP/1.1", "Host: 127.0.0.1:\(proxy.port)", "Connection: close"])
        #expect(response.status == 508, "the inner request's 508, passed back through the outer one")
        #expect(response.text.contains("already passed through this proxy"), "\(response.text)")
        #expect(try await proxy.log.eventually { $0.contains("GET \(own) 508 ") }, "\(proxy.log.all)")
        #expect(proxy.log.all.filter { $0.contains("GET /again 508 ") }.count == 1, "the returning request, once: \(proxy.log.all)")
        #expect(proxy.log.all.count == 2, "\(proxy.log.all)")
        await proxy.stop()
    }

    @Test func anUnreachableUpstreamIsA502ThatSaysWhy() async throws {
        let proxy = try await ProxyHarness.start(ProxyConfiguration())
        try await ClosedPort.with { port in
            let url = "http://127.0.0.1:\(port)/gone"
            let response = try await proxy.send(["GET \(url) HTTP/1.1", "Host: 127.0.0.1:\(port)", "Connection: close"])
            #expect(response.status == 502)
            #expect(response.text.contains(url))
        }
        await proxy.stop()
    }

    /// An upstream certificate is checked as usual: one from an unknown authority is a 502 that
    /// says so, never accepted silently; trusting that authority (`--ca-certificate`) lets it through.
    @Test func aBadUpstreamCertificateIsA502ThatSaysWhy() async throws {
        let authority = try TestCertificateAuthority()
        let origin = try await TestOrigin.start(tls: try authority.serverIdentity())
        origin.route("/secure") { _ in .html("secure page") }
        let request = ["GET \(origin.url("/secure")) HTTP/1.1", "Host: \(origin.authority)", "Connection: close"]
        let untrusting = try await ProxyHarness.start(ProxyConfiguration())
        let refused = try await untrusting.send(request)
        #expect(refused.status == 502)
        #expect(refused.text.contains("the certificate is not trusted"), "\(refused.text)")
        #expect(origin.requests(path: "/secure").isEmpty)
        await untrusting.stop()
        let trusting = try await ProxyHarness.start(
            ProxyConfiguration(),
            security: try await authority.withCertificateFile {
                try TransportSecurity(caCertificateFiles: [$0], environment: [:])
            })
        let accepted = try await trusting.send(request)
        #expect(accepted.status == 200)
        #expect(accepted.text == "secure page")
        await trusting.stop()
        try await origin.shutdown()
    }
}
