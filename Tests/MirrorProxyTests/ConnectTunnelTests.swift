import Foundation
import MirrorProxy
import MirrorTestSupport
import Testing

/// `CONNECT host:port`: a tunnel that carries bytes unread (HTTPS, usually); none in replay.
@Suite("mirror proxy: CONNECT")
struct ConnectTunnelTests {
    /// Two requests through one tunnel, written as raw bytes: the origin gets them exactly, the
    /// proxy neither caches nor rewrites them (no Via, no Cache-Status).
    @Test func aTunnelCarriesBytesBothWaysUnread() async throws {
        let origin = try await TestOrigin.start()
        origin.route("/inside") { request in .html("tunnelled \(request.query ?? "")", headers: [("Cache-Control", "max-age=600")]) }
        let proxy = try await ProxyHarness.start(ProxyConfiguration())
        let port = proxy.port
        let authority = origin.authority
        let (established, first, second) = try await RawHTTPConnection.run {
            let connection = try RawHTTPConnection(port: port)
            try connection.send("CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n\r\n")
            let established = try connection.readResponse(headOnly: true)
            try connection.send("GET /inside?n=1 HTTP/1.1\r\nHost: \(authority)\r\nX-Through: tunnel\r\n\r\n")
            let first = try connection.readResponse()
            try connection.send("GET /inside?n=2 HTTP/1.1\r\nHost: \(authority)\r\n\r\n")
            return (established, first, try connection.readResponse())
        }
        #expect(established.status == 200)
        #expect(first.text == "tunnelled n=1")
        #expect(second.text == "tunnelled n=2")
        #expect(first.header("via") == nil && first.header("cache-status") == nil)
        #expect(origin.requests(path: "/inside").count == 2)
        #expect(origin.requests(path: "/inside").first?.header("x-through") == "tunnel")
        #expect(try proxy.store.statistics().entries == 0)
        #expect(proxy.log.all.contains { $0.contains("CONNECT \(authority) 200 0 ") && $0.hasSuffix("ms tunnel") }, "\(proxy.log.all)")
        await proxy.stop()
        try await origin.shutdown()
    }

    /// A tunnel that carries nothing either way for its idle timeout is closed at both ends.
    @Test func anIdleTunnelIsClosed() async throws {
        let origin = try await TestOrigin.start()
        let proxy = try await ProxyHarness.start(ProxyConfiguration()) { $0.tunnelIdleTimeout = .milliseconds(500) }
        let port = proxy.port
        let authority = origin.authority
        let (established, closed) = try await RawHTTPConnection.run {
            let connection = try RawHTTPConnection(port: port)
            try connection.send("CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n\r\n")
            return (try connection.readResponse(headOnly: true), connection.isClosedByServer())
        }
        #expect(established.status == 200)
        #expect(closed, "the proxy closed the idle tunnel")
        #expect(origin.connections == 1)
        await proxy.stop()
        try await origin.shutdown()
    }

    @Test func anUnreachableTargetIsA502AndTheConnectionCloses() async throws {
        let proxy = try await ProxyHarness.start(ProxyConfiguration())
        let port = proxy.port
        try await ClosedPort.with { closedPort in
            let authority = "127.0.0.1:\(closedPort)"
            let (response, closed) = try await RawHTTPConnection.run {
                let connection = try RawHTTPConnection(port: port)
                try connection.send("CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n\r\n")
                return (try connection.readResponse(), connection.isClosedByServer())
            }
            #expect(response.status == 502)
            #expect(response.reason.hasPrefix("Cannot connect to \(authority)"), "\(response.reason)")
            #expect(closed)
        }
        await proxy.stop()
    }

    @Test func replayRefusesToTunnelAndOpensNothing() async throws {
        let origin = try await TestOrigin.start()
        let proxy = try await ProxyHarness.start(ProxyConfiguration(mode: .replay))
        let port = proxy.port
        let authority = origin.authority
        let (response, closed) = try await RawHTTPConnection.run {
            let connection = try RawHTTPConnection(port: port)
            try connection.send("CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n\r\n")
            return (try connection.readResponse(), connection.isClosedByServer())
        }
        #expect(response.status == 504)
        #expect(response.reason == "Replaying, no connection to \(authority)")
        #expect(closed)
        #expect(origin.connections == 0)
        #expect(try await proxy.log.eventually { $0.contains("CONNECT \(authority) 504 ") && $0.hasSuffix("tunnel-refused") })
        await proxy.stop()
        try await origin.shutdown()
    }
}
