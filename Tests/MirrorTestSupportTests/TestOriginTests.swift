import AsyncHTTPClient
import Foundation
import MirrorCompression
import MirrorTestSupport
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import Testing

/// The test origin, exercised with a real HTTP client.
@Suite("In-process test origin")
struct TestOriginTests {
    /// A client that does not follow redirects or decompress, so tests see the wire. Its read
    /// timeout is a minute: a run of the whole suite on a slow machine once kept a test's
    /// response waiting past 30 s.
    static let client = HTTPClient(
        eventLoopGroupProvider: .singleton,
        configuration: .init(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(30), read: .seconds(60))))

    /// The default deadline is generous: the whole suite starts at once on two cores, and a
    /// loaded machine must not fail a test that is not about time.
    func fetch(
        _ url: String, method: HTTPMethod = .GET, headers: [(String, String)] = [],
        timeout: TimeAmount = .seconds(120)
    ) async throws -> (HTTPClientResponse, [UInt8]) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(contentsOf: headers)
        let response = try await Self.client.execute(request, timeout: timeout)
        let body = try await response.body.collect(upTo: 10 << 20)
        return (response, Array(buffer: body))
    }

    @Test func servesFixtureFilesAndLogsRequests() async throws {
        try await TestOrigin.with(site: .named("plain")) { origin in
            let (response, body) = try await fetch(origin.url("/"), headers: [("X-Test", "1")])
            #expect(response.status == .ok)
            #expect(response.headers.first(name: "content-type") == "text/html; charset=utf-8")
            #expect(String(decoding: body, as: UTF8.self).contains("<title>Plain site</title>"))
            #expect(response.headers.first(name: "date") != nil)

            let logged = try #require(origin.requests(path: "/").first)
            #expect(logged.method == .GET)
            #expect(logged.host == origin.authority)
            #expect(logged.header("x-test") == "1")
            #expect(abs(logged.time.timeIntervalSinceNow) < TestTiming.seconds(60))

            let (missing, _) = try await fetch(origin.url("/nope.html"))
            #expect(missing.status == .notFound)
            #expect(origin.requests.map(\.path) == ["/", "/nope.html"])
        }
    }

    @Test func conditionalRequestRoundTripGives304() async throws {
        try await TestOrigin.with(site: .named("plain")) { origin in
            let (first, body) = try await fetch(origin.url("/style.css"))
            let etag = try #require(first.headers.first(name: "etag"))
            let modified = try #require(first.headers.first(name: "last-modified"))
            #expect(!body.isEmpty)

            let (byTag, tagBody) = try await fetch(origin.url("/style.css"), headers: [("If-None-Match", etag)])
            #expect(byTag.status == .notModified)
            #expect(tagBody.isEmpty)
            #expect(byTag.headers.first(name: "etag") == etag)

            let (byDate, _) = try await fetch(origin.url("/style.css"), headers: [("If-Modified-Since", modified)])
            #expect(byDate.status == .notModified)

            let (changed, changedBody) = try await fetch(origin.url("/style.css"), headers: [("If-None-Match", "\"other\"")])
            #expect(changed.status == .ok)
            #expect(changedBody == body)

            let conditional = origin.requests(path: "/style.css").map { $0.header("if-none-match") }
            #expect(conditional == [nil, etag, nil, "\"other\""])
        }
    }

    @Test func programmableRoutesSetAnyStatusAndHeadersAndSeeTheRequest() async throws {
        try await TestOrigin.with { origin in
            origin.route("/vary") { request in
                let language = request.header("accept-language") ?? "en"
                return TestResponse.content(
                    "hello in \(language)", type: "text/plain",
                    headers: [("Vary", "Accept-Language"), ("Cache-Control", "max-age=60")])
            }
            origin.route("/teapot") { _ in .status(418, "short and stout") }
            let (fr, frBody) = try await fetch(origin.url("/vary?x=1"), headers: [("Accept-Language", "fr")])
            #expect(String(decoding: frBody, as: UTF8.self) == "hello in fr")
            #expect(fr.headers.first(name: "vary") == "Accept-Language")
            #expect(fr.headers.first(name: "cache-control") == "max-age=60")
            #expect(origin.requests(path: "/vary").first?.query == "x=1")
            let (teapot, _) = try await fetch(origin.url("/teapot"))
            #expect(teapot.status.code == 418)
        }
    }

    @Test func redirectsChainsAndLoops() async throws {
        try await TestOrigin.with(site: .named("links")) { origin in
            let chain = [("/r1", 301, "/r2"), ("/r2", 302, "/r3"), ("/r3", 307, "/r4"), ("/r4", 308, "/index.html")]
            for (from, status, to) in chain {
                origin.route(from) { _ in .redirect(to: to, status: status) }
            }
            origin.route("/loop-a") { _ in .redirect(to: "/loop-b") }
            origin.route("/loop-b") { _ in .redirect(to: "/loop-a") }

            var path = "/r1"
            var statuses: [UInt] = []
            for _ in 0..<10 {
                let (response, _) = try await fetch(origin.url(path))
                statuses.append(response.status.code)
                guard let location = response.headers.first(name: "location") else { break }
                path = location
            }
            #expect(statuses == [301, 302, 307, 308, 200])
            #expect(origin.requests.map(\.path) == ["/r1", "/r2", "/r3", "/r4", "/index.html"])
            let (loop, _) = try await fetch(origin.url("/loop-b"))
            #expect(loop.headers.first(name: "location") == "/loop-a")
            let (fixtureRedirect, _) = try await fetch(origin.url("/old.html"))
            #expect(fixtureRedirect.status == .movedPermanently)
            #expect(fixtureRedirect.headers.first(name: "location") == "/index.html")
        }
    }

    @Test func pageNextToFolderOfTheSameName() async throws {
        try await TestOrigin.with(site: .named("links")) { origin in
            let (page, pageBody) = try await fetch(origin.url("/docs"))
            let (folder, folderBody) = try await fetch(origin.url("/docs/"))
            #expect(page.status == .ok && folder.status == .ok)
            #expect(String(decoding: pageBody, as: UTF8.self).contains("Docs (page)"))
            #expect(String(decoding: folderBody, as: UTF8.self).contains("Docs (folder)"))
            let (encoded, _) = try await fetch(origin.url("/%C3%BCn%C3%AFcode.html"))
            #expect(encoded.status == .ok)
            let (escape, _) = try await fetch(origin.url("/css/../../../etc/passwd"))
            #expect(escape.status == .notFound)
        }
    }

    @Test func chunkedAndGzipBodies() async throws {
        try await TestOrigin.with { origin in
            let text = String(repeating: "chunk of text ", count: 1000)
            origin.route("/chunked") { _ in
                var response = TestResponse.content(text, type: "text/plain")
                response.chunkSize = 1000
                return response
            }
            origin.route("/gzip") { _ in
                var response = TestResponse.content(text, type: "text/plain")
                response.gzip = true
                return response
            }
            let (chunked, chunkedBody) = try await fetch(origin.url("/chunked"))
            #expect(chunked.headers.first(name: "transfer-encoding") == "chunked")
            #expect(chunked.headers.first(name: "content-length") == nil)
            #expect(String(decoding: chunkedBody, as: UTF8.self) == text)

            let (gzipped, gzippedBody) = try await fetch(origin.url("/gzip"))
            #expect(gzipped.headers.first(name: "content-encoding") == "gzip")
            #expect(gzippedBody.count < text.utf8.count / 10)
            #expect(try GzipDecoder.decompress(gzippedBody) == Array(text.utf8))
        }
    }

    @Test func slowResponsesAndConnectionsDyingMidBody() async throws {
        try await TestOrigin.with { origin in
            origin.route("/slow") { _ in
                var response = TestResponse.html("late")
                response.delay = .seconds(90)  // past the client's read timeout
                return response
            }
            origin.route("/dies") { _ in
                var response = TestResponse.content(String(repeating: "x", count: 10_000), type: "text/plain")
                response.closeAfterBodyBytes = 100
                return response
            }
            // The client's deadline ends the wait, not the response arriving (later). On a
            // machine loaded enough to starve the cooperative pool, the deadline's cancellation (a task
            // on that pool) can come after the read timeout (on the event loop): either is the client
            // giving up on a response that did not come.
            let slow = await #expect(throws: HTTPClientError.self) { try await fetch(origin.url("/slow"), timeout: .seconds(2)) }
            #expect(slow == .deadlineExceeded || slow == .readTimeout)
            await #expect(throws: (any Error).self) { try await fetch(origin.url("/dies")) }
            #expect(origin.requests(path: "/dies").count == 1)
        }
    }

    @Test func headRequestsGetHeadersOnly() async throws {
        try await TestOrigin.with(site: .named("plain")) { origin in
            let (response, body) = try await fetch(origin.url("/about.html"), method: .HEAD)
            #expect(response.status == .ok)
            #expect(body.isEmpty)
            #expect(Int(response.headers.first(name: "content-length") ?? "") ?? 0 > 0)
        }
    }

    @Test func severalOriginsAtOnce() async throws {
        try await TestOrigin.with(site: .named("plain")) { first in
            try await TestOrigin.with(site: .named("links")) { second in
                #expect(first.port != second.port)
                let (a, _) = try await fetch(first.url("/about.html"))
                let (b, _) = try await fetch(second.url("/about.html"))
                #expect(a.status == .ok)
                #expect(b.status == .notFound)
                #expect(first.requests.count == 1 && second.requests.count == 1)
            }
        }
    }
}

extension TestOriginTests {
    /// The origin answers while every thread of Swift's cooperative pool is busy with synchronous
    /// work (as parallel tests make it), so crawls under test do not time out on a busy run.
    @Test func answersWhileTheCooperativePoolIsBusy() async throws {
        try await TestOrigin.with { origin in
            origin.route("/") { _ in .html("ok") }
            _ = try await fetch(origin.url("/"))  // connection and route warmed up
            let answered = NIOLockedValueBox<ContinuousClock.Instant?>(nil)
            let busyUntil = ContinuousClock.now + .seconds(TestTiming.seconds(3))
            let spinners = (0..<ProcessInfo.processInfo.activeProcessorCount).map { _ in
                Task.detached { while ContinuousClock.now < busyUntil {} }
            }
            Self.client.get(url: origin.url("/")).whenComplete { _ in answered.withLockedValue { $0 = .now } }
            for spinner in spinners { await spinner.value }
            while answered.withLockedValue({ $0 }) == nil && ContinuousClock.now < busyUntil + .seconds(30) {
                try await Task.sleep(for: .milliseconds(10))
            }
            let answer = try #require(answered.withLockedValue { $0 })
            #expect(answer < busyUntil, "the origin waited for the cooperative pool")
        }
    }
}
