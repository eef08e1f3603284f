import Foundation
import MirrorCache
import MirrorCompression
import MirrorCore
import MirrorHTTP
import MirrorLock
import MirrorTestSupport
import NIOHTTP1
import Testing

/// The caching client end to end: real transport, real store, in-process origin.
@Suite("Caching client", .serialized)
struct CachingClientTests {
    static let transport = AsyncHTTPClientTransport()
    let folder = TemporaryDirectory("caching-client")

    func client(
        _ configure: (inout CachingClient.Configuration) -> Void = { _ in },
        store: CacheStore? = nil
    ) throws -> CachingClient {
        var configuration = CachingClient.Configuration()
        configure(&configuration)
        return CachingClient(
            store: try store ?? CacheStore(directory: folder.path), transport: Self.transport,
            configuration: configuration)
    }

    func text(_ response: CacheResponse) throws -> String {
        String(decoding: try response.body.collect(), as: UTF8.self)
    }

    @Test func aFreshResponseIsServedWithoutTheNetwork() async throws {
        try await TestOrigin.with { origin in
            origin.route("/fresh") { _ in .content("fresh body", type: "text/plain", headers: [("Cache-Control", "max-age=3600")]) }
            let client = try client()
            let first = try await client.fetch(CacheRequest(url: origin.url("/fresh")))
            let second = try await client.fetch(CacheRequest(url: origin.url("/fresh")))
            #expect(first.outcome == .miss)
            #expect(second.outcome == .hit)
            #expect(try text(second) == "fresh body")
            #expect(second.headers.first(name: "age") != nil)
            #expect(origin.requests(path: "/fresh").count == 1)
        }
    }

    /// stale-while-revalidate: the stale response answers at once, one validation runs behind
    /// it, and the next request gets what that validation brought.
    @Test func staleWhileRevalidateAnswersAtOnceAndRefreshesBehind() async throws {
        try await TestOrigin.with { origin in
            let version = Locked(0)
            origin.route("/swr") { _ in
                let current = version.withLock { $0 }
                return .content(
                    "version \(current)", type: "text/plain",
                    headers: [("Cache-Control", "max-age=1, stale-while-revalidate=600"), ("ETag", "\"\(current)\"")])
            }
            var clock = 1_000_000.0
            let times = Locked(clock)
            var configuration = CacheStore.Configuration()
            configuration.now = { times.withLock { $0 } }
            let client = try client(store: try CacheStore(directory: folder.path, configuration: configuration))
            #expect(try text(try await client.fetch(CacheRequest(url: origin.url("/swr")))) == "version 0")
            version.withLock { $0 = 1 }
            clock += 10
            times.withLock { $0 = clock }
            let stale = try await client.fetch(CacheRequest(url: origin.url("/swr")))
            #expect(stale.outcome == .staleHit)
            #expect(try text(stale) == "version 0", "answered from the store, not after the origin")
            var refreshed = ""
            for _ in 0..<600 where refreshed != "version 1" {  // the validation behind it, up to a minute
                try await Task.sleep(for: .milliseconds(100))
                refreshed = try text(try await client.fetch(CacheRequest(url: origin.url("/swr"))))
            }
            #expect(refreshed == "version 1")
            #expect(origin.requests(path: "/swr").count == 2, "one request made the validation")
        }
    }

    @Test func aStaleResponseIsRevalidatedWithA304() async throws {
        try await TestOrigin.with { origin in
            origin.route("/style.css") { _ in
                .content("body {}", type: "text/css", headers: [("Cache-Control", "max-age=0"), ("ETag", "\"v7\"")])
            }
            let client = try client()
            let first = try await client.fetch(CacheRequest(url: origin.url("/style.css")))
            #expect(first.outcome == .miss)
            let second = try await client.fetch(CacheRequest(url: origin.url("/style.css")))
            #expect(second.outcome == .revalidated)
            #expect(second.status == 200)
            #expect(try second.body.collect() == first.body.collect())
            let logged = origin.requests(path: "/style.css")
            #expect(logged.count == 2)
            #expect(logged[1].header("if-none-match") == first.headers.first(name: "etag"))
            #expect(try client.store.statistics().entries == 1)
        }
    }

    @Test func oneHundredConcurrentRequestsMakeOneOriginRequest() async throws {
        try await TestOrigin.with { origin in
            origin.route("/popular") { _ in
                var response = TestResponse.content(
                    String(repeating: "p", count: 50_000), type: "text/plain",
                    headers: [("Cache-Control", "max-age=600")])
                response.delay = .milliseconds(300)
                return response
            }
            let client = try client()
            let bodies = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<100 {
                    group.addTask { try await client.fetch(CacheRequest(url: origin.url("/popular"))).body.collect().count }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(bodies.count == 100)
            #expect(bodies.allSatisfy { $0 == 50_000 })
            #expect(origin.requests(path: "/popular").count == 1)
        }
    }

    @Test func gzipIsDecodedBeforeStoringAndBombsAreStopped() async throws {
        try await TestOrigin.with { origin in
            let text = String(repeating: "compressible ", count: 5000)
            origin.route("/gz") { _ in
                var response = TestResponse.content(text, type: "text/plain", headers: [("Cache-Control", "max-age=60")])
                response.gzip = true
                return response
            }
            origin.route("/bomb") { _ in
                var response = TestResponse(headers: ["Content-Type": "text/plain"], body: [UInt8](repeating: 0, count: 8 << 20))
                response.gzip = true
                return response
            }
            let client = try client { $0.maxBodySize = 1 << 20 }
            let response = try await client.fetch(CacheRequest(url: origin.url("/gz")))
            #expect(try self.text(response) == text)
            #expect(response.headers.first(name: "content-encoding") == nil)
            #expect(response.headers.first(name: "content-length") == String(text.utf8.count))
            #expect(origin.requests(path: "/gz").first?.header("accept-encoding")?.contains("gzip") == true)
            await #expect(throws: CacheError.bodyTooLarge(url: origin.url("/bomb"), limit: 1 << 20)) {
                _ = try await client.fetch(CacheRequest(url: origin.url("/bomb")))
            }
            #expect(try client.store.entry(for: origin.url("/bomb"), request: [:]) == nil)
        }
    }

    @Test func offlineModeNeverTouchesTheNetwork() async throws {
        try await TestOrigin.with(site: .named("plain")) { origin in
            let store = try CacheStore(directory: folder.path)
            _ = try await client(store: store).fetch(CacheRequest(url: origin.url("/about.html")))
            origin.clearLog()
            let offline = try client({ $0.mode = .offline }, store: store)
            let stored = try await offline.fetch(CacheRequest(url: origin.url("/about.html")))
            #expect(stored.status == 200)
            #expect(stored.outcome == .staleHit || stored.outcome == .hit)
            let missing = try await offline.fetch(CacheRequest(url: origin.url("/index.html")))
            #expect(missing.status == 504)
            #expect(missing.outcome == .offlineMiss)
            #expect(origin.requests.isEmpty)
        }
    }

    @Test func maxAgeModeUsesYoungEntriesWhateverTheirHeaders() async throws {
        try await TestOrigin.with { origin in
            origin.route("/no-cache") { _ in
                .content("x", type: "text/plain", headers: [("Cache-Control", "no-cache"), ("ETag", "\"a\"")])
            }
            let store = try CacheStore(directory: folder.path)
            _ = try await client(store: store).fetch(CacheRequest(url: origin.url("/no-cache")))
            let cached = try await client({ $0.mode = .maxAge(3600) }, store: store).fetch(CacheRequest(url: origin.url("/no-cache")))
            #expect(cached.outcome == .hit || cached.outcome == .staleHit)
            #expect(origin.requests.count == 1)
            let standard = try await client(store: store).fetch(CacheRequest(url: origin.url("/no-cache")))
            #expect(standard.outcome == .revalidated)
            #expect(origin.requests.count == 2)
        }
    }

    @Test func refreshModeRevalidatesFreshEntries() async throws {
        try await TestOrigin.with { origin in
            origin.route("/page") { _ in
                .content("p", type: "text/plain", headers: [("Cache-Control", "max-age=3600"), ("ETag", "\"v1\"")])
            }
            let store = try CacheStore(directory: folder.path)
            _ = try await client(store: store).fetch(CacheRequest(url: origin.url("/page")))
            let refreshed = try await client({ $0.mode = .refresh }, store: store).fetch(CacheRequest(url: origin.url("/page")))
            #expect(refreshed.outcome == .revalidated)
            #expect(origin.requests(path: "/page").last?.header("if-none-match") == "\"v1\"")
        }
    }

    @Test func noStoreAndUnadmittedHostsAreNotStored() async throws {
        try await TestOrigin.with { origin in
            origin.route("/secret") { _ in .content("s", type: "text/plain", headers: [("Cache-Control", "no-store")]) }
            origin.route("/other") { _ in .content("o", type: "text/plain", headers: [("Cache-Control", "max-age=600")]) }
            let client = try client { $0.admission.hosts = [HostPattern("only.example")!] }
            let secret = try await client.fetch(CacheRequest(url: origin.url("/secret")))
            #expect(secret.outcome == .bypass)
            #expect(try text(secret) == "s")
            _ = try await client.fetch(CacheRequest(url: origin.url("/other")))
            _ = try await client.fetch(CacheRequest(url: origin.url("/other")))
            #expect(origin.requests(path: "/other").count == 2)
            #expect(try client.store.statistics().entries == 0)

            let open = try self.client()
            _ = try await open.fetch(CacheRequest(url: origin.url("/secret")))
            _ = try await open.fetch(CacheRequest(url: origin.url("/secret")))
            #expect(origin.requests(path: "/secret").count == 3)
        }
    }

    @Test func staleIfErrorServesTheStoredCopyWhenTheOriginFails() async throws {
        try await TestOrigin.with { origin in
            let failing = ManagedAtomicFlag()
            origin.route("/flaky") { _ in
                failing.isSet
                    ? .status(503, "down")
                    : .content(
                        "good copy", type: "text/plain", headers: [("Cache-Control", "max-age=0, stale-if-error=600"), ("ETag", "\"g\"")])
            }
            let client = try client()
            _ = try await client.fetch(CacheRequest(url: origin.url("/flaky")))
            failing.set()
            let response = try await client.fetch(CacheRequest(url: origin.url("/flaky")))
            #expect(response.outcome == .staleOnError)
            #expect(try text(response) == "good copy")
        }
    }

    @Test func unsafeMethodsInvalidateTheStoredResponse() async throws {
        try await TestOrigin.with { origin in
            origin.route("/item") { request in
                request.method == .POST ? .status(204) : .content("item", type: "text/plain", headers: [("Cache-Control", "max-age=600")])
            }
            let client = try client()
            _ = try await client.fetch(CacheRequest(url: origin.url("/item")))
            #expect(try client.store.entry(for: origin.url("/item"), request: [:]) != nil)
            let post = try await client.fetch(CacheRequest(url: origin.url("/item"), method: .POST, body: Array("x".utf8)))
            #expect(post.outcome == .bypass)
            #expect(try client.store.entry(for: origin.url("/item"), request: [:]) == nil)
        }
    }

    @Test func aConnectionDyingMidBodyStoresNothing() async throws {
        try await TestOrigin.with { origin in
            origin.route("/dies") { _ in
                var response = TestResponse.content(
                    String(repeating: "d", count: 100_000), type: "text/plain",
                    headers: [("Cache-Control", "max-age=600")])
                response.closeAfterBodyBytes = 1000
                return response
            }
            let client = try client()
            await #expect(throws: (any Error).self) { _ = try await client.fetch(CacheRequest(url: origin.url("/dies"))) }
            #expect(try client.store.statistics().entries == 0)
            #expect(folder.files(under: "tmp").isEmpty)
        }
    }

    @Test func redirectsAreReturnedNotFollowed() async throws {
        try await TestOrigin.with(site: .named("links")) { origin in
            let response = try await client().fetch(CacheRequest(url: origin.url("/old.html")))
            #expect(response.status == 301)
            #expect(response.headers.first(name: "location") == "/index.html")
            #expect(origin.requests.map(\.path) == ["/old.html"])
        }
    }

    @Test func headIsAnsweredFromTheStoredGet() async throws {
        try await TestOrigin.with { origin in
            origin.route("/doc") { _ in .content("document", type: "text/plain", headers: [("Cache-Control", "max-age=600")]) }
            let client = try client()
            _ = try await client.fetch(CacheRequest(url: origin.url("/doc")))
            let head = try await client.fetch(CacheRequest(url: origin.url("/doc"), method: .HEAD))
            #expect(head.outcome == .hit)
            #expect(head.body.count == 0)
            #expect(head.headers.first(name: "content-length") == "8")
            #expect(origin.requests.count == 1)
        }
    }

    @Test func equivalentURLsShareOneEntry() async throws {
        try await TestOrigin.with { origin in
            origin.route("/a%20b/c") { _ in .content("x", type: "text/plain", headers: [("Cache-Control", "max-age=600")]) }
            let client = try client()
            _ = try await client.fetch(CacheRequest(url: "http://\(origin.host.uppercased()):\(origin.port)/x/../a%20b/./c#frag"))
            let second = try await client.fetch(CacheRequest(url: origin.url("/a%20b/c")))
            #expect(second.outcome == .hit)
            #expect(origin.requests.count == 1)
        }
    }
}

/// A flag routes can read from any thread.
final class ManagedAtomicFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
