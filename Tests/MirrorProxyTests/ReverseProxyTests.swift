import Foundation
import MirrorLock
import MirrorProxy
import MirrorTestSupport
import Testing

/// `mirror proxy --upstream URL`: every method reaches the origin, and the proxy is an RFC 9111 shared cache.
@Suite("mirror proxy: reverse proxy and shared cache")
struct ReverseProxyTests {
    @Test func everyMethodReachesTheOriginWithItsBodyButNoHopByHopHeaders() async throws {
        let origin = try await TestOrigin.start()
        origin.route("/echo") { request in
            TestResponse(
                headers: [("Connection", "x-origin-hop"), ("X-Origin-Hop", "1"), ("X-Kept", "yes")],
                body: "\(request.method.rawValue) \(String(decoding: request.body, as: UTF8.self))")
        }
        let proxy = try await ProxyHarness.reverse(origin)
        for method in ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] {
            let body = method == "GET" ? "" : "payload of \(method)"
            let response = try await proxy.request(
                method, "/echo?m=\(method)",
                headers: [
                    "Connection: close, x-client-hop", "X-Client-Hop: 1",
                    "Keep-Alive: timeout=5", "X-End-To-End: 1",
                ], body: body)
            #expect(response.status == 200, "\(method)")
            #expect(response.text == "\(method) \(body)", "\(method)")
            #expect(response.header("x-kept") == "yes")
            #expect(response.header("x-origin-hop") == nil, "a field the origin's Connection names stays on that connection")
            #expect(response.header("via")?.hasPrefix("1.1 mirror-") == true)
            #expect(response.header("cache-status")?.hasPrefix("mirror; ") == true)
            let received = try #require(origin.requests(path: "/echo").last)
            #expect(received.method.rawValue == method)
            #expect(received.query == "m=\(method)")
            #expect(received.header("x-client-hop") == nil && received.header("keep-alive") == nil)
            #expect(received.header("x-end-to-end") == "1")
            #expect(received.header("via") == response.header("via"), "the same pseudonym both ways")
            #expect(received.host == origin.authority, "the upstream's Host, not the proxy's")
        }
        #expect(origin.requests(path: "/echo").count == 6, "nothing is answered from the cache without a freshness")
        await proxy.stop()
        try await origin.shutdown()
    }

    /// NIOHTTP1 reads `M-SEARCH` but writes its case as `MSEARCH`, which HTTP parsers refuse
    /// (a 400 before the handler): the proxy must send `M-SEARCH`.
    /// An origin that closes a kept-alive connection just as the proxy sends the next request on
    /// it (its keep-alive timeout firing) costs the client nothing: an idempotent request is sent
    /// again on a new connection, a POST is not (it may have been acted on). One connection per
    /// host, kept for ten minutes: with more, or closed after the usual 30 s unused, a loaded run
    /// can send the next request on a new connection, and nothing is closed under it.
    @Test func aConnectionTheOriginClosedAsItWasReusedIsRetriedForIdempotentRequests() async throws {
        try await TestOrigin.with { origin in
            origin.route("/first") { _ in
                var response = TestResponse.html("first", headers: [("Cache-Control", "no-store")])
                response.closesConnectionOnNextRequest = true
                return response
            }
            origin.route("/second") { _ in .html("second", headers: [("Cache-Control", "no-store")]) }
            let proxy = try await ProxyHarness.reverse(origin, connectionsPerHost: 1, idleTimeout: .seconds(600))
            #expect(try await proxy.request("GET", "/first").status == 200)
            let second = try await proxy.request("GET", "/second")
            #expect(second.status == 200 && second.text == "second", "\(second.text)")
            #expect(origin.requests.filter { $0.path == "/second" }.count == 2, "once on the closed connection, once again")

            #expect(try await proxy.request("GET", "/first").status == 200)
            let posted = try await proxy.request("POST", "/second", body: "x")
            #expect(posted.status == 502, "a POST is not sent twice")
            await proxy.stop()
        }
    }

    @Test func mSearchReachesTheOriginAsItWasSent() async throws {
        let origin = try await TestOrigin.start()
        origin.route("/ssdp") { request in .html("M-SEARCH: \(request.method == .MSEARCH)") }
        let proxy = try await ProxyHarness.reverse(origin)
        let response = try await proxy.request("M-SEARCH", "/ssdp")
        #expect(response.status == 200)
        #expect(response.text == "M-SEARCH: true")
        await proxy.stop()
        try await origin.shutdown()
    }

    @Test func aFreshResponseIsStoredOnceAndThenAHit() async throws {
        let origin = try await TestOrigin.start()
        origin.route("/page") { _ in .html("<p>page</p>", headers: [("Cache-Control", "max-age=600")]) }
        let proxy = try await ProxyHarness.reverse(origin)
        let first = try await proxy.request("GET", "/page")
        #expect(first.header("cache-status") == "mirror; fwd=uri-miss; fwd-status=200; stored")
        let second = try await proxy.request("GET", "/page")
        #expect(second.status == 200)
        #expect(second.text == "<p>page</p>")
        #expect(second.header("cache-status") == "mirror; hit")
        #expect(second.header("age") != nil)
        let head = try await proxy.request("HEAD", "/page")
        #expect(head.header("cache-status") == "mirror; hit")
        #expect(head.header("content-length") == "11")
        #expect(origin.requests(path: "/page").count == 1)
        await proxy.stop()
        try await origin.shutdown()
    }

    /// A shared cache never stores `private` responses, nor answers to Authorization without
    /// public, s-maxage or must-revalidate; s-maxage outranks max-age.
    @Test func sharedCacheRules() async throws {
        let origin = try await TestOrigin.start()
        origin.route("/private") { _ in .html("mine", headers: [("Cache-Control", "private, max-age=600")]) }
        origin.route("/auth") { _ in .html("secret", headers: [("Cache-Control", "max-age=600")]) }
        origin.route("/auth-public") { _ in .html("shared", headers: [("Cache-Control", "public, max-age=600")]) }
        origin.route("/s-maxage") { _ in .html("short", headers: [("Cache-Control", "max-age=600, s-maxage=0")]) }
        let proxy = try await ProxyHarness.reverse(origin)
        for (path, headers, stored) in [
            ("/private", [String](), false), ("/auth", ["Authorization: Bearer x"], false),
            ("/auth-public", ["Authorization: Bearer x"], true), ("/s-maxage", [], true),
        ] {
            _ = try await proxy.request("GET", path, headers: headers)
            let again = try await proxy.request("GET", path, headers: headers)
            #expect(origin.requests(path: path).count == (stored && path != "/s-maxage" ? 1 : 2), "\(path)")
            #expect((again.header("cache-status") == "mirror; hit") == (stored && path != "/s-maxage"), "\(path)")
        }
        await proxy.stop()
        try await origin.shutdown()
    }

    @Test func anUnsafeMethodInvalidatesWhatIsStored() async throws {
        let origin = try await TestOrigin.start()
        let version = Counter()
        origin.route("/item") { request in
            if request.method == .GET { return .html("version \(version.value)", headers: [("Cache-Control", "max-age=600")]) }
            version.increment()
            return .status(204)
        }
        let proxy = try await ProxyHarness.reverse(origin)
        #expect(try await proxy.request("GET", "/item").text == "version 0")
        #expect(try await proxy.request("GET", "/item").header("cache-status") == "mirror; hit")
        let update = try await proxy.request("PUT", "/item", body: "new")
        #expect(update.status == 204)
        #expect(update.header("cache-status") == "mirror; fwd=method; fwd-status=204")
        let after = try await proxy.request("GET", "/item")
        #expect(after.text == "version 1")
        #expect(after.header("cache-status")?.contains("fwd=uri-miss") == true)
        await proxy.stop()
        try await origin.shutdown()
    }

    /// RFC 9211: a stale entry sent for validation is `fwd=stale`, whether the origin confirms it
    /// (304) or replaces it (a new 200, stored).
    @Test func aValidatedEntrySaysFwdStaleWhateverTheOriginAnswers() async throws {
        let origin = try await TestOrigin.start()
        let version = Counter()
        origin.route("/doc") { _ in
            .html("version \(version.value)", headers: [("Cache-Control", "no-cache"), ("ETag", "\"v\(version.value)\"")])
        }
        let proxy = try await ProxyHarness.reverse(origin)
        let first = try await proxy.request("GET", "/doc")
        #expect(first.header("cache-status") == "mirror; fwd=uri-miss; fwd-status=200; stored")
        let confirmed = try await proxy.request("GET", "/doc")
        #expect(confirmed.header("cache-status") == "mirror; fwd=stale; fwd-status=304")
        #expect(confirmed.text == "version 0")
        version.increment()
        let replaced = try await proxy.request("GET", "/doc")
        #expect(replaced.header("cache-status") == "mirror; fwd=stale; fwd-status=200; stored")
        #expect(replaced.text == "version 1")
        #expect(origin.requests(path: "/doc").count == 3)
        #expect(origin.requests(path: "/doc").last?.header("if-none-match") == "\"v0\"")
        await proxy.stop()
        try await origin.shutdown()
    }

    /// A Range request stores the whole response and is answered from it (as pywb does), so a
    /// second range of the same file needs no origin at all; conditions are answered the same way.
    @Test func rangesAndConditionsAreAnsweredFromTheWholeStoredResponse() async throws {
        let origin = try await TestOrigin.start()
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        origin.route("/film.bin") { _ in
            TestResponse(
                headers: ["Content-Type": "application/octet-stream", "ETag": "\"v1\"", "Cache-Control": "max-age=600"],
                body: bytes)
        }
        let proxy = try await ProxyHarness.reverse(origin)
        let first = try await proxy.request("GET", "/film.bin", headers: ["Range: bytes=10-19"])
        #expect(first.status == 206)
        #expect(first.header("content-range") == "bytes 10-19/100000")
        #expect(first.body == Array(bytes[10..<20]))
        #expect(origin.requests(path: "/film.bin").first?.header("range") == nil, "the whole response is fetched")
        let tail = try await proxy.request("GET", "/film.bin", headers: ["Range: bytes=-5"])
        #expect(tail.status == 206)
        #expect(tail.body == Array(bytes[99_995...]))
        #expect(tail.header("cache-status") == "mirror; hit")
        let outside = try await proxy.request("GET", "/film.bin", headers: ["Range: bytes=200000-"])
        #expect(outside.status == 416)
        #expect(outside.header("content-range") == "bytes */100000")
        let unchanged = try await proxy.request("GET", "/film.bin", headers: ["If-None-Match: \"v1\""])
        #expect(unchanged.status == 304)
        let stale = try await proxy.request("GET", "/film.bin", headers: ["Range: bytes=0-1", "If-Range: \"v0\""])
        #expect(stale.status == 200)
        #expect(stale.body == bytes)
        #expect(origin.requests(path: "/film.bin").count == 1)
        await proxy.stop()
        try await origin.shutdown()
    }
}

/// A thread-safe count for origin routes.
final class Counter: Sendable {
    private let count = Locked(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
}
