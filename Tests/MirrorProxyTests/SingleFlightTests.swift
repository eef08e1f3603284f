import Foundation
import MirrorLock
import MirrorProxy
import MirrorTestSupport
import Testing

/// Concurrent identical requests make one upstream request.
@Suite("mirror proxy: concurrency")
struct SingleFlightTests {
    @Test func aHundredConcurrentIdenticalRequestsMakeOneUpstreamRequest() async throws {
        let origin = try await TestOrigin.start()
        let arrived = Locked(0)
        let body = String(repeating: "x", count: 200_000)
        origin.route("/popular") { _ in
            arrived.withLock { $0 += 1 }
            var response = TestResponse.content(body, type: "text/plain", headers: [("Cache-Control", "max-age=600")])
            response.delay = .milliseconds(300)  // keeps the flight open while the others arrive
            return response
        }
        let proxy = try await ProxyHarness.reverse(origin)
        let responses = try await withThrowingTaskGroup(of: (Int, Int, String).self) { group in
            for _ in 0..<100 {
                group.addTask {
                    let response = try await proxy.request("GET", "/popular")
                    return (response.status, response.body.count, response.header("cache-status") ?? "")
                }
            }
            return try await group.reduce(into: [(Int, Int, String)]()) { $0.append($1) }
        }
        #expect(responses.count == 100)
        #expect(responses.allSatisfy { $0.0 == 200 && $0.1 == body.utf8.count })
        #expect(origin.requests(path: "/popular").count == 1)
        // One request made the exchange; the others say they joined it (RFC 9211 collapsed),
        // or, arriving after it was stored, that they were hits.
        let statuses = responses.map(\.2)
        #expect(statuses.filter { $0 == "mirror; fwd=uri-miss; fwd-status=200; stored" }.count == 1, "\(Set(statuses))")
        #expect(
            statuses.allSatisfy {
                $0 == "mirror; fwd=uri-miss; fwd-status=200; stored" || $0 == "mirror; fwd=uri-miss; fwd-status=200; stored; collapsed"
                    || $0 == "mirror; hit"
            }, "\(Set(statuses))")
        #expect(statuses.contains { $0.hasSuffix("; collapsed") })
        await proxy.stop()
        try await origin.shutdown()
    }

    /// Two hundred clients at once, four for each of fifty URLs: every client gets its whole
    /// page, and each URL is fetched from the origin once.
    @Test func twoHundredConcurrentClients() async throws {
        let origin = try await TestOrigin.start()
        let page: @Sendable (Int) -> String = { String(repeating: "page \($0) ", count: 4_000) }
        for index in 0..<50 {
            origin.route("/file/\(index)") { _ in
                var response = TestResponse.content(page(index), type: "text/plain", headers: [("Cache-Control", "max-age=600")])
                response.delay = .milliseconds(100)
                return response
            }
        }
        let proxy = try await ProxyHarness.reverse(origin)
        let answers = try await withThrowingTaskGroup(of: Bool.self) { group in
            for client in 0..<200 {
                group.addTask {
                    let response = try await proxy.request("GET", "/file/\(client % 50)")
                    return response.status == 200 && response.text == page(client % 50)
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(answers.count == 200)
        #expect(answers.filter { $0 }.count == 200)
        #expect((0..<50).allSatisfy { origin.requests(path: "/file/\($0)").count == 1 })
        await proxy.stop()
        try await origin.shutdown()
    }
}
