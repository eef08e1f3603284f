import Foundation
import MirrorProxy
import MirrorTestSupport
import Synchronization
import Testing

/// Concurrent identical requests make one upstream request.
@Suite("mirror proxy: concurrency")
struct SingleFlightTests {
    @Test func aHundredConcurrentIdenticalRequestsMakeOneUpstreamRequest() async throws {
        let origin = try await TestOrigin.start()
        let arrived = Mutex(0)
        let body = String(repeating: "x", count: 200_000)
        origin.route("/popular") { _ in
            arrived.withLock { $0 += 1 }
            var response = TestResponse.content(body, type: "text/plain", headers: [("Cache-Control", "max-age=600")])
            response.delay = .milliseconds(300)  // keeps the flight open while the others arrive
            return response
        }
        let proxy = try await ProxyHarness.reverse(origin)
        let statuses = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for _ in 0..<100 {
                group.addTask {
                    let response = try await proxy.request("GET", "/popular")
                    return (response.status, response.body.count)
                }
            }
            return try await group.reduce(into: [(Int, Int)]()) { $0.append($1) }
        }
        #expect(statuses.count == 100)
        #expect(statuses.allSatisfy { $0 == (200, body.utf8.count) })
        #expect(origin.requests(path: "/popular").count == 1)
        await proxy.stop()
        try await origin.shutdown()
    }
}
