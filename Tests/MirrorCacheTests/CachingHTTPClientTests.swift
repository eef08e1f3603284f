import AsyncHTTPClient
import Foundation
import MirrorCache
import MirrorHTTP
import MirrorLock
import MirrorTestSupport
import NIOCore
import Testing

/// async-http-client through a cache folder (`CachingHTTPClient`), against the in-process origin.
@Suite("async-http-client through the cache")
struct CachingHTTPClientTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ahc-\(UUID().uuidString)").path
    /// Each request's limit, and the exchange's with the origin: generous, as a whole run's first
    /// minutes keep Swift's two pool threads (where the origin answers) busy for longer than a
    /// request's usual 30 s.
    let timeout = TimeAmount.seconds(Int64(TestTiming.seconds(180)))

    /// Runs `body` with a client on the folder in `mode`; shuts it down (and removes the folder
    /// unless `keeping`) after, however `body` ends.
    func with<Result>(
        _ mode: RecordingMode = .record, keeping: Bool = false, _ body: (CachingHTTPClient) async throws -> Result
    ) async throws -> Result {
        var configuration = CachingClient.Configuration()
        configuration.timeout = .seconds(TestTiming.seconds(180))
        let client = try CachingHTTPClient(folder: folder, mode: mode, configuration: configuration)
        let result: Swift.Result<Result, any Error>
        do { result = .success(try await body(client)) } catch { result = .failure(error) }
        try await client.shutdown()
        if !keeping { try? FileManager.default.removeItem(atPath: folder) }
        return try result.get()
    }

    func text(_ response: HTTPClientResponse) async throws -> String {
        String(buffer: try await response.body.collect(upTo: 1 << 20))
    }

    @Test func aFreshResponseIsAnsweredAgainWithoutTheOrigin() async throws {
        try await TestOrigin.with { origin in
            origin.route("/fresh") { _ in .content("fresh", type: "text/plain", headers: [("Cache-Control", "max-age=600")]) }
            try await with { client in
                for _ in 0..<3 {
                    let response = try await client.execute(HTTPClientRequest(url: origin.url("/fresh")), timeout: timeout)
                    #expect(response.status == .ok)
                    #expect(try await text(response) == "fresh")
                }
                #expect(origin.requests(path: "/fresh").count == 1)
            }
        }
    }

    @Test func aStaleResponseIsRevalidated() async throws {
        try await TestOrigin.with { origin in
            origin.route("/tagged") { _ in
                .content("tagged", type: "text/plain", headers: [("Cache-Control", "no-cache"), ("ETag", "\"t\"")])
            }
            try await with { client in
                for _ in 0..<2 {
                    let response = try await client.execute(HTTPClientRequest(url: origin.url("/tagged")), timeout: timeout)
                    #expect(try await text(response) == "tagged")
                }
                #expect(origin.requests(path: "/tagged").last?.header("if-none-match") == "\"t\"")
            }
        }
    }

    @Test func aRecordingReplaysWithTheOriginStoppedAndAnythingElseIsAReplayMiss() async throws {
        let origin = try await TestOrigin.start()
        origin.route("/page") { _ in .html("<p>kept</p>") }
        let (page, never) = (origin.url("/page"), origin.url("/never"))
        try await with(keeping: true) { client in
            _ = try await text(try await client.execute(HTTPClientRequest(url: page), timeout: timeout))
        }
        try await origin.shutdown()
        try await with(.replay) { client in
            let response = try await client.execute(HTTPClientRequest(url: page), timeout: timeout)
            #expect(try await text(response) == "<p>kept</p>")
            await #expect(throws: ReplayMiss(url: never)) {
                _ = try await client.execute(HTTPClientRequest(url: never), timeout: timeout)
            }
        }
    }

    @Test func varyKeepsEachLanguageApart() async throws {
        try await TestOrigin.with { origin in
            origin.route("/greeting") { request in
                let french = request.header("accept-language") == "fr"
                return .content(
                    french ? "bonjour" : "hello", type: "text/plain",
                    headers: [("Cache-Control", "max-age=600"), ("Vary", "Accept-Language")])
            }
            try await with { client in
                var answers: [String] = []
                for language in ["en", "fr", "en", "fr"] {
                    var request = HTTPClientRequest(url: origin.url("/greeting"))
                    request.headers.add(name: "Accept-Language", value: language)
                    answers.append(try await text(try await client.execute(request, timeout: timeout)))
                }
                #expect(answers == ["hello", "bonjour", "hello", "bonjour"])
                #expect(origin.requests(path: "/greeting").count == 2)
            }
        }
    }

    @Test func aCancelledReaderStopsMidBody() async throws {
        try await TestOrigin.with { origin in
            origin.route("/slow-body") { _ in
                var response = TestResponse(status: 200, headers: [:], body: [UInt8](repeating: 0x62, count: 4 << 20))
                response.chunkSize = 64 << 10
                response.chunkDelay = .milliseconds(20)
                return response
            }
            try await with { client in
                let received = Locked(0)
                let reader = Task {
                    let response = try await client.execute(HTTPClientRequest(url: origin.url("/slow-body")), timeout: timeout)
                    for try await piece in response.body { received.withLock { $0 += piece.readableBytes } }
                }
                while received.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(5)) }
                reader.cancel()
                await #expect(throws: CancellationError.self) { try await reader.value }
                let atCancel = received.withLock { $0 }
                try await Task.sleep(for: .milliseconds(300))
                #expect(received.withLock { $0 } == atCancel, "the body went on after the reader was cancelled")
                #expect(atCancel < 4 << 20)
            }
        }
    }

    @Test func concurrentRequestsOfOneURLMakeOneExchange() async throws {
        try await TestOrigin.with { origin in
            origin.route("/slow") { _ in
                var response = TestResponse.content("slow", type: "text/plain", headers: [("Cache-Control", "max-age=600")])
                response.delay = .milliseconds(300)
                return response
            }
            try await with { client in
                let bodies = try await withThrowingTaskGroup(of: String.self) { group in
                    for _ in 0..<8 {
                        group.addTask {
                            try await text(try await client.execute(HTTPClientRequest(url: origin.url("/slow")), timeout: timeout))
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(bodies == Array(repeating: "slow", count: 8))
                #expect(origin.requests(path: "/slow").count == 1)
            }
        }
    }

    @Test func redirectsAreFollowedWithCredentialsKeptToTheirOriginAndCyclesRefused() async throws {
        try await TestOrigin.with { origin in
            try await TestOrigin.with { other in
                other.route("/there") { _ in .content("there", type: "text/plain") }
                origin.route("/here") { _ in .redirect(to: other.url("/there"), status: 302) }
                origin.route("/loop") { _ in .redirect(to: "/loop-back", status: 302) }
                origin.route("/loop-back") { _ in .redirect(to: "/loop", status: 302) }
                try await with { client in
                    var request = HTTPClientRequest(url: origin.url("/here"))
                    request.headers.add(name: "Authorization", value: "Bearer secret")
                    let response = try await client.execute(request, timeout: timeout)
                    #expect(try await text(response) == "there")
                    #expect(origin.requests(path: "/here").first?.header("authorization") == "Bearer secret")
                    #expect(other.requests(path: "/there").first?.header("authorization") == nil)
                    await #expect(throws: HTTPClientError.redirectCycleDetected) {
                        _ = try await client.execute(HTTPClientRequest(url: origin.url("/loop")), timeout: timeout)
                    }
                }
            }
        }
    }

    @Test func uploadsGoToTheOriginUncached() async throws {
        try await TestOrigin.with { origin in
            origin.route("/form") { request in
                .content("got \(request.body.count)", type: "text/plain", headers: [("Cache-Control", "max-age=600")])
            }
            try await with { client in
                for _ in 0..<2 {
                    var request = HTTPClientRequest(url: origin.url("/form"))
                    request.method = .POST
                    request.body = .bytes(ByteBuffer(string: "fields"))
                    let answer = try await text(try await client.execute(request, timeout: timeout))
                    #expect(answer == "got 6")
                }
                #expect(origin.requests(path: "/form").count == 2)
            }
        }
    }

    @Test func aLargeBodyStreamsAsItArrives() async throws {
        let size = 64 << 20
        let received = Locked(0)
        let arrivedBeforeTheEnd = Locked(false)
        try await TestOrigin.with { origin in
            origin.route("/large") { _ in
                var response = TestResponse(status: 200, headers: [:], body: [UInt8](repeating: 0x63, count: size))
                response.chunkSize = 64 << 10
                // The last chunk waits until half the body has reached the caller: up to 150 s, within
                // the request's limit, as the origin's chunks are made on the pool threads that a
                // whole run's first minutes keep busy (a full run on a slow machine took over 60 s).
                response.beforeLastChunk = {
                    let end = ContinuousClock.now + .seconds(TestTiming.seconds(150))
                    while received.withLock({ $0 }) < size / 2 && ContinuousClock.now < end {
                        try? await Task.sleep(for: .milliseconds(5))
                    }
                    arrivedBeforeTheEnd.withLock { $0 = received.withLock { $0 } >= size / 2 }
                }
                return response
            }
            try await with { client in
                let response = try await client.execute(HTTPClientRequest(url: origin.url("/large")), timeout: timeout)
                for try await piece in response.body { received.withLock { $0 += piece.readableBytes } }
            }
        }
        #expect(received.withLock { $0 } == size)
        #expect(arrivedBeforeTheEnd.withLock { $0 }, "the body reached the caller only at its end")
    }
}
