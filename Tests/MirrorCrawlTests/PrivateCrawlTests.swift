import Crypto
import Foundation
import MirrorCore
import MirrorCrawl
import MirrorCrawlTesting
import MirrorCredentials
import MirrorTestSupport
import Testing

/// Crawls of private sites through the library: Digest authentication checked by the origin as a
/// server would, logout links found by their text, and a manifest that keeps no session.
@Suite("Crawls with credentials")
struct PrivateCrawlTests {
    static func credentials(_ seed: String, headers: [CrawlCredentials.Field] = [], login: Login? = nil) throws -> CrawlCredentials {
        var configuration = CrawlConfiguration(seeds: [seed])
        configuration.headers = .init(headers.map { ($0.name, $0.value) })
        return CrawlCredentials(configuration: configuration, login: login, jar: CookieJar(publicSuffixes: nil))
    }

    /// The origin checks each Digest answer (RFC 7616, MD5, qop=auth) against the password it knows.
    static func digestAllows(_ request: TestRequest, password: String) -> Bool {
        guard let header = request.header("authorization"), header.hasPrefix("Digest ") else { return false }
        let fields = AuthenticationChallenge.parse([header]).first?.parameters ?? [:]
        func md5(_ text: String) -> String { Hex.string(Insecure.MD5.hash(data: Array(text.utf8))) }
        guard let user = fields["username"], let realm = fields["realm"], let nonce = fields["nonce"], let uri = fields["uri"],
            let nc = fields["nc"], let cnonce = fields["cnonce"], fields["qop"] == "auth", uri == request.uri, nonce == "n-1"
        else { return false }
        let expected = md5("\(md5("\(user):\(realm):\(password)")):\(nonce):\(nc):\(cnonce):auth:\(md5("GET:\(uri)"))")
        return fields["response"] == expected
    }

    @Test func digestAuthenticationIsAnsweredAsTheServerChecks() async throws {
        try await TestOrigin.with { origin in
            let password = "pw-\(UUID().uuidString)"
            func page(_ body: String) -> TestOrigin.Handler {
                { request in
                    if Self.digestAllows(request, password: password) { return .html(body) }
                    var challenge = TestResponse.html("who?")
                    challenge.status = 401
                    challenge.headers.add(name: "WWW-Authenticate", value: #"Digest realm="docs", qop="auth", nonce="n-1", algorithm=MD5"#)
                    return challenge
                }
            }
            origin.route("/", page("<a href='/a.html?x=1'>A</a>"))
            origin.route("/a.html", page("Private A"))
            try await CrawlHarness.with { harness in
                let report = try await harness.crawl(
                    [origin.url("/")],
                    credentials: try Self.credentials(
                        origin.url("/"), login: Login(user: "carol", password: password)))
                #expect(report.failures.isEmpty, "\(report.failures)")
                #expect(report.pages == 2)
                #expect(report.credentialsWanted.isEmpty)
                let saved = FolderContents.files(harness.root + "/out", excluding: [".mirror"]).values
                #expect(saved.contains { $0.firstRange(of: Array("Private A".utf8)) != nil })
            }
        }
    }

    @Test func logoutLinksAreFoundByTheirTextAndListedNotFollowed() async throws {
        try await TestOrigin.with { origin in
            origin.route("/") { _ in
                .html(
                    """
                    <a href="/account/end-session">Sign out</a> <a href="/users/sign_out">x</a> <a href="/catalog/output">Catalog</a>
                    <a href="/docs" title="docs">Docs</a>
                    """)
            }
            for path in ["/docs", "/catalog/output"] { origin.route(path) { _ in .html("page") } }
            try await CrawlHarness.with { harness in
                let report = try await harness.crawl(
                    [origin.url("/")],
                    credentials: try Self.credentials(
                        origin.url("/"), headers: [.init(name: "Authorization", value: "Bearer T")]))
                #expect(origin.requests(path: "/account/end-session").isEmpty && origin.requests(path: "/users/sign_out").isEmpty)
                #expect(origin.requests(path: "/catalog/output").count == 1 && origin.requests(path: "/docs").count == 1)
                #expect(report.skipped[SkipReason.logout.rawValue] == 2)
                #expect(
                    Set(report.skippedExamples.filter { $0.reason == SkipReason.logout.rawValue }.map(\.url))
                        == [origin.url("/account/end-session"), origin.url("/users/sign_out")])
                // Without credentials (and no session cookie) such links are ordinary links.
                let anonymous = try await harness.crawl([origin.url("/")], output: "anonymous")
                #expect(anonymous.skipped[SkipReason.logout.rawValue] == nil)
            }
        }
    }

    @Test func theManifestAndJournalKeepNoSession() async throws {
        try await TestOrigin.with { origin in
            let secret = "S-\(UUID().uuidString)"
            origin.route("/") { _ in .html("<a href='/b'>b</a>", headers: [("Set-Cookie", "sid=\(secret)"), ("Cache-Control", "no-store")])
            }
            origin.route("/b") { request in .html(request.header("cookie") == "sid=\(secret)" ? "with session" : "without") }
            try await CrawlHarness.with { harness in
                let report = try await harness.crawl([origin.url("/")])
                #expect(report.pages == 2)
                let page = try String(contentsOfFile: harness.root + "/out/127.0.0.1_\(origin.port)/b.html", encoding: .utf8)
                #expect(page.contains("with session"))
                let found = FolderContents.files(harness.root).filter { _, bytes in bytes.firstRange(of: Array(secret.utf8)) != nil }
                #expect(found.isEmpty, "\(found.keys)")
            }
        }
    }
}
