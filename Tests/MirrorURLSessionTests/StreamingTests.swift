import Foundation
import MirrorLock
import MirrorTestSupport
import MirrorURLSession
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Bodies through `MirrorURLProtocol`: as they arrive to a delegate, whole to a completion
/// handler, and stopped by a cancelled task.
@Suite("URLSession bodies through the cache", .serialized)
struct StreamingTests {
    let harness = SessionHarness()

    /// A data delegate that counts what arrives and when the task ends.
    final class Receiver: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        struct State {
            var received = 0
            var completion: (any Error)??
        }
        let state = Locked(State())
        private let ended = AsyncStream<Void>.makeStream()

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            state.withLock { $0.received += data.count }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            state.withLock { $0.completion = .some(error) }
            ended.continuation.yield()
        }

        var received: Int { state.withLock { $0.received } }

        /// Waits until the task ends; its error, if it failed.
        func completion() async -> (any Error)? {
            for await _ in ended.stream { break }
            return state.withLock { $0.completion ?? nil }
        }

        /// Waits (up to `limit`) until `bytes` have arrived; whether they did.
        func waitFor(_ bytes: Int, limit: Duration) async -> Bool {
            let end = ContinuousClock.now + limit
            while received < bytes && ContinuousClock.now < end { try? await Task.sleep(for: .milliseconds(5)) }
            return received >= bytes
        }
    }

    @Test func aHundredMegabytesStreamToADelegateAsTheyArrive() async throws {
        let size = 100 << 20
        let body = [UInt8](repeating: 0x61, count: size)
        let receiver = Receiver()
        let arrivedBeforeTheEnd = Locked(false)
        try await TestOrigin.with { origin in
            origin.route("/large") { _ in
                var response = TestResponse(status: 200, headers: ["Content-Type": "application/octet-stream"], body: body)
                response.chunkSize = 64 << 10
                // The last chunk waits until most of the body has reached the delegate: it
                // streams, rather than arriving whole once the origin is done. The wait is long:
                // a full test run starves every test for its first minutes.
                response.beforeLastChunk = {
                    let arrived = await receiver.waitFor(size / 2, limit: .seconds(TestTiming.seconds(300)))
                    arrivedBeforeTheEnd.withLock { $0 = arrived }
                }
                return response
            }
            try await harness.with(delegate: receiver) { session, _ in
                session.dataTask(with: URL(string: origin.url("/large"))!).resume()
                let error = await receiver.completion()
                #expect(error == nil)
            }
        }
        #expect(receiver.received == size)
        #expect(arrivedBeforeTheEnd.withLock { $0 }, "the body reached the delegate only at its end")
    }

    @Test func twoHundredMegabytesTakeLessThanHalfTheirSizeInTheProcessThatDownloadsThem() async throws {
        let size = 200 << 20
        try await TestOrigin.with { origin in
            origin.route("/large") { _ in
                var response = TestResponse(
                    status: 200, headers: ["Cache-Control": "max-age=600"], body: [UInt8](repeating: 0x64, count: size))
                response.chunkSize = 64 << 10
                return response
            }
            // In a process of its own (mirror-urlsession-bench stream): its resident memory is the
            // download's alone, not this test process's, where other tests run alongside. Under
            // AddressSanitizer, without the quarantine where it keeps freed memory (256 MB) to
            // catch a use after free: what it holds there the program has let go.
            var environment: [String: String] = [:]
            if let options = ProcessInfo.processInfo.environment["ASAN_OPTIONS"] {
                environment["ASAN_OPTIONS"] = options + ":quarantine_size_mb=0"
            }
            // URLSession through MirrorURLProtocol, and async-http-client through CachingHTTPClient.
            for client in ["urlsession", "ahc"] {
                let folder = harness.folder + "-" + client
                defer { try? FileManager.default.removeItem(atPath: folder) }
                let run = try await ChildProcess.run(
                    BuiltProducts.executable("mirror-urlsession-bench"), ["stream", client, origin.url("/large"), folder],
                    environment: environment)
                #expect(run.status == 0, "\(client): \(run.stderr)")
                let summary = try JSONDecoder().decode([String: Int].self, from: Data(run.stdout.utf8))
                #expect(summary["bytes"] == size, "\(client)")
                let growth = (summary["rss_peak"] ?? .max) - (summary["rss_before"] ?? 0)
                #expect(growth < size / 2, "\(client): resident memory grew by \(growth >> 20) MB while 200 MB streamed")
            }
        }
    }

    @Test func aCompletionHandlerInASessionWithADelegateGetsTheWholeBody() async throws {
        let body = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try await TestOrigin.with { origin in
            origin.route("/whole") { _ in
                var response = TestResponse(status: 200, headers: ["Cache-Control": "max-age=600"], body: body)
                response.chunkSize = 256 << 10
                return response
            }
            try await harness.with(delegate: Receiver()) { session, _ in
                let url = URL(string: origin.url("/whole"))!
                let (fetched, _) = try await session.data(from: url)
                let (stored, _) = try await session.data(from: url)
                // Compared outside #expect: a mismatch of megabytes would take its diff forever.
                let whole = [UInt8](fetched) == body && [UInt8](stored) == body
                #expect(whole, "\(fetched.count) and \(stored.count) bytes of \(body.count)")
            }
        }
    }

    @Test func aCancelledTaskStopsMidBody() async throws {
        let receiver = Receiver()
        try await TestOrigin.with { origin in
            origin.route("/slow-body") { _ in
                var response = TestResponse(status: 200, headers: [:], body: [UInt8](repeating: 0x62, count: 4 << 20))
                response.chunkSize = 64 << 10
                response.chunkDelay = .milliseconds(20)
                return response
            }
            try await harness.with(delegate: receiver) { session, _ in
                let task = session.dataTask(with: URL(string: origin.url("/slow-body"))!)
                task.resume()
                #expect(await receiver.waitFor(1, limit: .seconds(TestTiming.seconds(30))))
                task.cancel()
                let error = await receiver.completion()
                #expect((error as? URLError)?.code == .cancelled)
                let atCancel = receiver.received
                try await Task.sleep(for: .milliseconds(300))
                #expect(receiver.received == atCancel, "data arrived after the task was cancelled")
                #expect(atCancel < 4 << 20)
            }
        }
    }
}
