import AsyncHTTPClient
import MirrorCache
import MirrorHTTP
import MirrorLock
import MirrorTestSupport
import Testing

/// How the transport hands a response over: a page served at once whole, a body still arriving
/// as a stream that reads on as the caller takes it, and a stream its reader leaves ends its
/// download.
@Suite struct TransportResponseTests {
    /// Raised by the test, awaited by the origin.
    final class Flag: Sendable {
        private let raised = Locked(false)

        func raise() { raised.withLock { $0 = true } }
        var isRaised: Bool { raised.withLock { $0 } }

        /// Returns once raised, or after `seconds`.
        func wait(seconds: Double) async {
            let deadline = ContinuousClock.now + .seconds(seconds)
            while !isRaised && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        }
    }

    @Test func aPageComesWithItsHeadAndWholeBody() async throws {
        try await TestOrigin.with { origin in
            let body = (0..<50_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
            origin.route("/page") { _ in TestResponse(status: 203, headers: ["Content-Type": "text/html"], body: body) }
            let transport = AsyncHTTPClientTransport(eventLoops: .own)
            let response = try await transport.send(TransportRequest(url: origin.url("/page")))
            #expect(response.status == 203)
            #expect(response.headers.first(name: "content-type") == "text/html")
            var received: [UInt8] = []
            for try await chunk in response.body { received += chunk }
            #expect(received == body)
            try await transport.shutdown()
        }
    }

    /// The caller has the head while the origin still holds the body's last chunk; the rest
    /// follows once the origin sends it. A transport that waited for the whole body would keep
    /// the head until the origin gave up waiting.
    @Test func aBodyStillArrivingIsHandedOverBeforeItEnds() async throws {
        try await TestOrigin.with { origin in
            let headSeen = Flag()
            let sawHeadFirst = Locked<Bool?>(nil)
            let body = (0..<40_000).map { UInt8(truncatingIfNeeded: $0 * 13) }
            origin.route("/slow") { _ in
                var response = TestResponse(body: body)
                response.chunkSize = 10_000
                response.beforeLastChunk = {
                    // Generous: the test's task, which raises the flag, can wait a minute for a
                    // thread while the whole suite runs on two cores.
                    await headSeen.wait(seconds: TestTiming.seconds(120))
                    sawHeadFirst.withLock { $0 = headSeen.isRaised }
                }
                return response
            }
            let transport = AsyncHTTPClientTransport(eventLoops: .own)
            let response = try await transport.send(TransportRequest(url: origin.url("/slow")))
            headSeen.raise()
            var received: [UInt8] = []
            for try await chunk in response.body { received += chunk }
            #expect(sawHeadFirst.withLock { $0 } == true)
            #expect(received == body)
            try await transport.shutdown()
        }
    }

    /// A connection that dies after the head and part of the body: the caller has the head, and
    /// the body throws after the bytes that came; the request is not sent again.
    @Test func aBodyCutShortEndsInAnError() async throws {
        try await TestOrigin.with { origin in
            origin.route("/cut") { _ in
                var response = TestResponse(body: [UInt8](repeating: 5, count: 50_000))
                response.closeAfterBodyBytes = 1_000
                return response
            }
            let transport = AsyncHTTPClientTransport(eventLoops: .own)
            let response = try await transport.send(TransportRequest(url: origin.url("/cut")))
            #expect(response.status == 200)
            #expect(response.headers.first(name: "content-length") == "50000")
            var received = 0
            await #expect(throws: (any Error).self) {
                for try await chunk in response.body { received += chunk.count }
            }
            #expect(received <= 1_000)
            #expect(origin.requests(path: "/cut").count == 1)
            try await transport.shutdown()
        }
    }

    /// A reader that stops after the first chunk of a long, slow body frees the connection.
    @Test func aReaderThatLeavesAStreamEndsItsDownload() async throws {
        try await expectTheConnectionFreed { response in
            for try await chunk in response.body {
                #expect(!chunk.isEmpty)
                break
            }
        }
    }

    /// A response dropped without a read of its body (a caller that wanted only the head) frees
    /// its connection too. Were the body kept alive by what made it, its download would go on,
    /// or stay paused once the stream was full, holding the only connection.
    @Test func aResponseDroppedUnreadEndsItsDownload() async throws {
        try await expectTheConnectionFreed { response in #expect(response.status == 200) }
    }

    /// On a transport of one connection, `leave` is given a long, slow body's response (8 MB at
    /// 64 KB a second) and leaves it; the next request is then answered at once, not after the
    /// download (minutes at this pace) or never (a download paused for a reader who left).
    private func expectTheConnectionFreed(leaving leave: (TransportResponse) async throws -> Void) async throws {
        try await TestOrigin.with { origin in
            origin.route("/long") { _ in
                var response = TestResponse(body: [UInt8](repeating: 1, count: 8 << 20))
                response.chunkSize = 64 << 10
                response.chunkDelay = .seconds(1)
                return response
            }
            origin.route("/next") { _ in .html("next") }
            let transport = AsyncHTTPClientTransport(connectionsPerHost: 1, eventLoops: .own)
            try await leave(try await transport.send(TransportRequest(url: origin.url("/long"))))
            let next = try await transport.send(
                TransportRequest(url: origin.url("/next"), timeout: .seconds(TestTiming.seconds(20))))
            #expect(next.status == 200)
            var received: [UInt8] = []
            for try await chunk in next.body { received += chunk }
            #expect(received == Array("next".utf8))
            try await transport.shutdown()
        }
    }

    /// The request's timeout bounds the wait for the head: a head later than that fails the
    /// request (the origin answers only once the test has seen it fail, or after a minute); a
    /// body that takes longer streams on.
    @Test func theTimeoutBoundsTheWaitForTheHeadNotTheBody() async throws {
        try await TestOrigin.with { origin in
            let failed = Flag()
            origin.route("/late") { _ in
                await failed.wait(seconds: TestTiming.seconds(60))
                return .html("late")
            }
            let body = [UInt8](repeating: 3, count: 4_000)
            origin.route("/slow-body") { _ in
                var response = TestResponse(body: body)
                response.chunkSize = 1_000
                response.chunkDelay = .seconds(TestTiming.seconds(0.6))
                return response
            }
            let transport = AsyncHTTPClientTransport(eventLoops: .own)
            let timeout = Duration.seconds(TestTiming.seconds(1))
            await #expect(throws: HTTPClientError.deadlineExceeded) {
                _ = try await transport.send(TransportRequest(url: origin.url("/late"), timeout: timeout))
            }
            failed.raise()
            let started = ContinuousClock.now
            let response = try await transport.send(TransportRequest(url: origin.url("/slow-body"), timeout: timeout))
            var received: [UInt8] = []
            for try await chunk in response.body { received += chunk }
            #expect(received == body)
            #expect(ContinuousClock.now - started > timeout, "the body took longer than the timeout")
            try await transport.shutdown()
        }
    }
}
