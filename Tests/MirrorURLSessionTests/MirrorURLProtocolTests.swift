import Foundation
import MirrorCache
import MirrorCore
import MirrorLock
import MirrorTestSupport
import MirrorURLSession
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// URLSession (FoundationNetworking) through `MirrorURLProtocol`, against the in-process origin.
@Suite("URLSession through the cache")
struct MirrorURLProtocolTests {
    let harness = SessionHarness()

    @Test func aFreshResponseIsAnsweredAgainWithoutTheOrigin() async throws {
        try await TestOrigin.with { origin in
            origin.route("/fresh") { _ in .content("hello", type: "text/plain", headers: [("Cache-Control", "max-age=600")]) }
            try await harness.with { session, _ in
                let url = URL(string: origin.url("/fresh"))!
                let (first, firstResponse) = try await session.data(from: url)
                let (second, secondResponse) = try await session.data(from: url)
                #expect(text(first) == "hello" && text(second) == "hello")
                #expect(status(firstResponse) == 200 && status(secondResponse) == 200)
                #expect(origin.requests(path: "/fresh").count == 1)
            }
        }
    }

    @Test func aStaleResponseIsRevalidatedAndA304AnswersWithTheStoredBody() async throws {
        try await TestOrigin.with { origin in
            origin.route("/tagged") { _ in
                .content("tagged body", type: "text/plain", headers: [("Cache-Control", "max-age=0"), ("ETag", "\"v1\"")])
            }
            try await harness.with { session, _ in
                let url = URL(string: origin.url("/tagged"))!
                _ = try await session.data(from: url)
                let (again, response) = try await session.data(from: url)
                #expect(text(again) == "tagged body" && status(response) == 200)
                let requests = origin.requests(path: "/tagged")
                #expect(requests.count == 2)
                #expect(requests.last?.header("if-none-match") == "\"v1\"")
            }
        }
    }

    @Test func varyKeepsEachLanguageApart() async throws {
        try await TestOrigin.with { origin in
            origin.route("/greeting") { request in
                let language = request.header("accept-language") ?? "en"
                return .content(
                    language == "fr" ? "bonjour" : "hello", type: "text/plain",
                    headers: [
                        ("Cache-Control", "max-age=600"), ("Vary", "Accept-Language"),
                    ])
            }
            try await harness.with { session, _ in
                func greeting(_ language: String) async throws -> String {
                    var request = URLRequest(url: URL(string: origin.url("/greeting"))!)
                    request.setValue(language, forHTTPHeaderField: "Accept-Language")
                    return text(try await session.data(for: request).0)
                }
                var answers: [String] = []
                for language in ["en", "fr", "en", "fr"] { answers.append(try await greeting(language)) }
                #expect(answers == ["hello", "bonjour", "hello", "bonjour"])
                #expect(origin.requests(path: "/greeting").count == 2)
            }
        }
    }

    @Test func aRecordingReplaysWithTheOriginStoppedAndAnythingElseIsAMiss() async throws {
        let recorded: URL
        let unrecorded: URL
        do {
            let origin = try await TestOrigin.start()
            origin.route("/page") { _ in .html("<p>recorded</p>") }
            recorded = URL(string: origin.url("/page"))!
            unrecorded = URL(string: origin.url("/never"))!
            try await harness.with(.record, removing: false) { session, _ in _ = try await session.data(from: recorded) }
            try await origin.shutdown()
        }
        defer { harness.remove() }
        try await harness.with(.replay, removing: false) { session, _ in
            let (body, response) = try await session.data(from: recorded)
            #expect(text(body) == "<p>recorded</p>" && status(response) == 200)
            await #expect {
                _ = try await session.data(from: unrecorded)
            } throws: { error in
                (error as? URLError)?.code == .resourceUnavailable
            }
        }
    }

    @Test func eachCachePolicyIsHonoured() async throws {
        try await TestOrigin.with { origin in
            origin.route("/policy") { _ in
                .content("policy", type: "text/plain", headers: [("Cache-Control", "max-age=600"), ("ETag", "\"p\"")])
            }
            try await harness.with { session, _ in
                let url = URL(string: origin.url("/policy"))!
                func load(_ policy: URLRequest.CachePolicy) async throws -> String {
                    text(try await session.data(for: URLRequest(url: url, cachePolicy: policy)).0)
                }
                // Nothing stored yet: a request that may not load is a miss.
                await #expect {
                    _ = try await load(.returnCacheDataDontLoad)
                } throws: { error in
                    (error as? URLError)?.code == .resourceUnavailable
                }
                #expect(origin.requests(path: "/policy").isEmpty)
                var answers: [String] = []
                for policy in [URLRequest.CachePolicy.useProtocolCachePolicy, .returnCacheDataDontLoad, .returnCacheDataElseLoad] {
                    answers.append(try await load(policy))
                }
                #expect(answers == ["policy", "policy", "policy"])
                #expect(origin.requests(path: "/policy").count == 1)
                // Reloading ignores what is stored, validators included.
                let reloaded = try await load(.reloadIgnoringLocalCacheData)
                #expect(reloaded == "policy")
                #expect(origin.requests(path: "/policy").count == 2)
                #expect(origin.requests(path: "/policy").last?.header("if-none-match") == nil)
                // Revalidating asks the origin with the stored validator.
                let revalidated = try await load(.reloadRevalidatingCacheData)
                #expect(revalidated == "policy")
                #expect(origin.requests(path: "/policy").count == 3)
                #expect(origin.requests(path: "/policy").last?.header("if-none-match") == "\"p\"")
            }
        }
    }

    @Test func concurrentTasksOfOneURLMakeOneRequest() async throws {
        try await TestOrigin.with { origin in
            origin.route("/slow") { _ in
                var response = TestResponse.content("slow", type: "text/plain", headers: [("Cache-Control", "max-age=600")])
                response.delay = .milliseconds(300)
                return response
            }
            try await harness.with { session, _ in
                let url = URL(string: origin.url("/slow"))!
                let bodies = try await withThrowingTaskGroup(of: String.self) { group in
                    for _ in 0..<8 { group.addTask { text(try await session.data(from: url).0) } }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(bodies == Array(repeating: "slow", count: 8))
                #expect(origin.requests(path: "/slow").count == 1)
            }
        }
    }

    /// Foundation's client reads the session's registry of tasks, which changes as tasks start
    /// and end: called off the session's work queue under this load, it crashes the process.
    @Test func thousandsOfHitsFromTasksThatComeAndGo() async throws {
        try await TestOrigin.with { origin in
            origin.route("/hot") { _ in .content("hot", type: "text/plain", headers: [("Cache-Control", "max-age=600")]) }
            try await harness.with { session, _ in
                let url = URL(string: origin.url("/hot"))!
                let answered = try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<8 {
                        group.addTask {
                            var right = 0
                            for _ in 0..<500 where text(try await session.data(from: url).0) == "hot" { right += 1 }
                            return right
                        }
                    }
                    return try await group.reduce(0, +)
                }
                #expect(answered == 4_000)
                #expect(origin.requests(path: "/hot").count == 1)
            }
        }
    }

    @Test func redirectsAreFollowedAndCredentialsStayWithTheirOrigin() async throws {
        try await TestOrigin.with { origin in
            try await TestOrigin.with { other in
                other.route("/elsewhere") { _ in .content("elsewhere", type: "text/plain") }
                origin.route("/moved") { _ in .redirect(to: other.url("/elsewhere"), status: 301) }
                origin.route("/see-other") { _ in .redirect(to: "/moved", status: 303) }
                try await harness.with { session, _ in
                    var request = URLRequest(url: URL(string: origin.url("/see-other"))!)
                    request.httpMethod = "POST"
                    request.httpBody = Data("form".utf8)
                    request.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
                    let (body, response) = try await session.data(for: request)
                    #expect(text(body) == "elsewhere" && status(response) == 200)
                    #expect(response.url?.absoluteString == other.url("/elsewhere"))
                    #expect(origin.requests(path: "/moved").first?.method == .GET)
                    #expect(origin.requests(path: "/moved").first?.header("authorization") == "Bearer secret")
                    #expect(other.requests(path: "/elsewhere").first?.header("authorization") == nil)
                }
            }
        }
    }

    @Test func aRedirectLoopFailsAsURLSessionFailsIt() async throws {
        try await TestOrigin.with { origin in
            origin.route("/round") { _ in .redirect(to: "/about", status: 302) }
            origin.route("/about") { _ in .redirect(to: "/round", status: 302) }
            _ = try await harness.with { session, _ in
                await #expect {
                    _ = try await session.data(from: URL(string: origin.url("/round"))!)
                } throws: { error in
                    (error as? URLError)?.code == .httpTooManyRedirects
                }
            }
        }
    }

    @Test func aDelegateThatRefusesARedirectGetsTheRedirect() async throws {
        final class Refusing: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
            let asked = Locked(0)
            func urlSession(
                _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
            ) {
                asked.withLock { $0 += 1 }
                completionHandler(nil)
            }
        }
        try await TestOrigin.with { origin in
            origin.route("/from") { _ in .redirect(to: "/to", status: 302) }
            origin.route("/to") { _ in .content("to", type: "text/plain") }
            let delegate = Refusing()
            try await harness.with(delegate: delegate) { session, _ in
                let (_, response) = try await session.data(from: URL(string: origin.url("/from"))!)
                #expect(status(response) == 302)
                #expect(delegate.asked.withLock { $0 } == 1)
                #expect(origin.requests(path: "/to").isEmpty)
            }
        }
    }

    @Test func uploadsGoToTheOriginUncached() async throws {
        try await TestOrigin.with { origin in
            origin.route("/form") { request in
                .content("got \(request.body.count)", type: "text/plain", headers: [("Cache-Control", "max-age=600")])
            }
            try await harness.with { session, _ in
                var request = URLRequest(url: URL(string: origin.url("/form"))!)
                request.httpMethod = "POST"
                for _ in 0..<2 {
                    let (body, _) = try await session.upload(for: request, from: Data("fields".utf8))
                    #expect(text(body) == "got 6")
                }
                #expect(origin.requests(path: "/form").map(\.body) == [Array("fields".utf8), Array("fields".utf8)])
            }
        }
    }

    @Test func theConfigurationsHeadersGoWithEveryRequest() async throws {
        try await TestOrigin.with { origin in
            origin.route("/headers") { _ in .content("ok", type: "text/plain") }
            let cache = try MirrorURLCache(folder: harness.folder)
            defer { harness.remove() }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpAdditionalHeaders = ["X-Client": "tests"]
            cache.install(in: configuration)
            let session = URLSession(configuration: configuration)
            _ = try await session.data(from: URL(string: origin.url("/headers"))!)
            session.finishTasksAndInvalidate()
            try await cache.close()
            #expect(origin.requests(path: "/headers").first?.header("x-client") == "tests")
        }
    }

    @Test func hostsOutsideTheAdmissionRulesPassTheCacheBy() async throws {
        try await TestOrigin.with { origin in
            origin.route("/kept") { _ in .content("kept", type: "text/plain", headers: [("Cache-Control", "max-age=600")]) }
            var configuration = CachingClient.Configuration()
            configuration.admission.hosts = [HostPattern("example.org")!]
            try await harness.with(configuration: configuration) { session, _ in
                let url = URL(string: origin.url("/kept"))!
                for _ in 0..<2 {
                    let body = try await session.data(from: url).0
                    #expect(text(body) == "kept")
                }
                #expect(origin.requests(path: "/kept").count == 2)
            }
        }
    }
}
