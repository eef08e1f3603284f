import AsyncHTTPClient
import Foundation
import MirrorLock
import MirrorProxy
import MirrorTestSupport
import NIOCore
import Testing

/// A response streams to the client while it is stored: the first bytes arrive while the origin
/// is still sending, and the entry is committed only once the body is whole.
@Suite("mirror proxy: streaming while storing")
struct StreamingTests {
    /// Random bytes, so that gzip does not shrink them to a chunk or two.
    static let body: [UInt8] = {
        var generator = SeededGenerator(seed: 13)
        return (0..<4_000_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }()

    /// Whether the client has had its first bytes, for the origin to wait on.
    private final class FirstBytes: Sendable {
        private let seen = Locked(false)
        func note() { seen.withLock { $0 = true } }
        /// Returns once the first bytes were seen, or after 60 s (a proxy that does not stream).
        func wait() async {
            let deadline = ContinuousClock.now + .seconds(60)
            while !seen.withLock({ $0 }) && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        }
    }

    @Test func theFirstBytesArriveBeforeTheOriginFinishesAndTheWholeIsStored() async throws {
        let origin = try await TestOrigin.start()
        let firstBytes = FirstBytes()
        origin.route("/big.bin") { _ in
            var response = TestResponse(headers: ["Cache-Control": "max-age=600"], body: Self.body)
            response.chunkSize = 64 << 10
            // The origin holds its last chunk until the client has bytes: a proxy that streams
            // passes whatever the machine's load; one that waits for the whole body never does.
            response.beforeLastChunk = { await firstBytes.wait() }
            response.gzip = true
            return response
        }
        let proxy = try await ProxyHarness.reverse(origin)
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let response = try await client.execute(
            HTTPClientRequest(url: "http://127.0.0.1:\(proxy.port)/big.bin"), timeout: .seconds(ProxyHarness.exchangeSeconds))
        #expect(response.headers.first(name: "cache-status") == "mirror; fwd=uri-miss; fwd-status=200; stored")
        var received: [UInt8] = []
        var originBusyAtFirstBytes: Bool?
        for try await buffer in response.body {
            if originBusyAtFirstBytes == nil {
                originBusyAtFirstBytes = origin.requestsInFlight == 1
                firstBytes.note()
            }
            received += Array(buffer: buffer)
        }
        #expect(originBusyAtFirstBytes == true, "the first bytes came only after the origin had sent the last")
        // Compared apart from #expect, whose account of a mismatch between 4 MB arrays (a diff)
        // would run for hours.
        let receivedWhole = received == Self.body
        #expect(receivedWhole, "decoded from gzip as it came: \(received.count) bytes")
        let again = try await client.execute(
            HTTPClientRequest(url: "http://127.0.0.1:\(proxy.port)/big.bin"), timeout: .seconds(ProxyHarness.exchangeSeconds))
        #expect(again.headers.first(name: "cache-status") == "mirror; hit")
        #expect(again.headers.first(name: "content-length") == String(Self.body.count))
        let storedWhole = Array(buffer: try await again.body.collect(upTo: 8 << 20)) == Self.body
        #expect(storedWhole)
        #expect(origin.requests(path: "/big.bin").count == 1)
        try await client.shutdown()
        await proxy.stop()
        try await origin.shutdown()
    }

    /// An origin that dies mid-body: the client's response is cut short (never a whole-looking
    /// body), and nothing is stored, so the next request asks the origin again.
    @Test func aBodyCutShortIsNeverStored() async throws {
        let origin = try await TestOrigin.start()
        origin.route("/cut.bin") { _ in
            var response = TestResponse(headers: ["Cache-Control": "max-age=600"], body: Self.body)
            response.closeAfterBodyBytes = 1_000_000
            return response
        }
        let proxy = try await ProxyHarness.reverse(origin)
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        for _ in 0..<2 {
            let response = try await client.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(proxy.port)/cut.bin"), timeout: .seconds(ProxyHarness.exchangeSeconds))
            #expect(response.headers.first(name: "content-length") == String(Self.body.count))
            await #expect(throws: (any Error).self) { _ = try await response.body.collect(upTo: 8 << 20) }
        }
        #expect(origin.requests(path: "/cut.bin").count == 2)
        #expect(try proxy.store.statistics().entries == 0)
        try await client.shutdown()
        await proxy.stop()
        try await origin.shutdown()
    }

    /// A range of a body still arriving gzip-encoded (its decoded length unknown until the end):
    /// the proxy waits for the whole to be stored and answers the range from it.
    @Test func aRangeOfABodyStillArrivingIsAnsweredOnceItIsWhole() async throws {
        let origin = try await TestOrigin.start()
        origin.route("/big.bin") { _ in
            var response = TestResponse(headers: ["Cache-Control": "max-age=600"], body: Self.body)
            response.chunkSize = 256 << 10
            response.chunkDelay = .milliseconds(20)
            response.gzip = true
            return response
        }
        let proxy = try await ProxyHarness.reverse(origin)
        let first = try await proxy.request("GET", "/big.bin", headers: ["Range: bytes=1000000-1000099"])
        #expect(first.status == 206)
        #expect(first.header("content-range") == "bytes 1000000-1000099/\(Self.body.count)")
        #expect(first.body == Array(Self.body[1_000_000..<1_000_100]))
        #expect(first.header("cache-status") == "mirror; fwd=uri-miss; fwd-status=200; stored")
        #expect(origin.requests(path: "/big.bin").count == 1)
        await proxy.stop()
        try await origin.shutdown()
    }

    /// A client that hangs up at the first bytes: the download goes on into the store, so the
    /// next client is answered from the cache.
    @Test func aClientThatHangsUpLeavesTheDownloadToFinishAndBeStored() async throws {
        let origin = try await TestOrigin.start()
        origin.route("/big.bin") { _ in
            var response = TestResponse(headers: ["Cache-Control": "max-age=600"], body: Self.body)
            response.chunkSize = 256 << 10
            response.chunkDelay = .milliseconds(20)
            return response
        }
        let proxy = try await ProxyHarness.reverse(origin)
        let port = proxy.port
        let firstBytes = try await RawHTTPConnection.run {
            let connection = try RawHTTPConnection(port: port)
            try connection.send("GET /big.bin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            return try connection.receive(upTo: 1024)  // then the connection is closed
        }
        #expect(!firstBytes.isEmpty)
        var stored = false
        for _ in 0..<600 where !stored {  // up to a minute for the origin's last bytes
            stored = try proxy.store.statistics().entries == 1
            if !stored { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(stored, "the download finished into the store after its client left")
        let again = try await proxy.request("GET", "/big.bin")
        #expect(again.header("cache-status") == "mirror; hit")
        let againWhole = again.body == Self.body
        #expect(againWhole, "\(again.body.count) bytes")
        #expect(origin.requests(path: "/big.bin").count == 1)
        await proxy.stop()
        try await origin.shutdown()
    }
}
