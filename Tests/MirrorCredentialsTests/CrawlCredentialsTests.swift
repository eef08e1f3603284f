import MirrorCore
import Testing

@testable import MirrorCredentials

@Suite("Where a crawl's credentials go")
struct CrawlCredentialsTests {
    func url(_ text: String) throws -> URLParts { try #require(URLParts(text)) }

    @Test func onlyToTheSeedsOriginsAndAllowedHostsAndNeverFromHTTPSToHTTP() throws {
        let secure = CredentialScope(
            seeds: [try url("https://docs.example.org/start")], allowedHosts: [try #require(HostPattern("*.example.org"))])
        #expect(secure.admits(try url("https://docs.example.org/other?x=1")))
        #expect(secure.admits(try url("https://cdn.example.org/a.css")))
        #expect(!secure.admits(try url("http://docs.example.org/")), "https to http")
        #expect(!secure.admits(try url("http://cdn.example.org/a.css")))
        #expect(secure.admits(try url("https://docs.example.org:8443/")), "*.example.org allows every port")
        let seedOnly = CredentialScope(seeds: [try url("https://docs.example.org/start")], allowedHosts: [])
        #expect(!seedOnly.admits(try url("https://docs.example.org:8443/")), "another port is another origin")
        #expect(!seedOnly.admits(try url("https://cdn.example.org/")))
        #expect(!secure.admits(try url("https://fonts.example.com/")))
        #expect(!secure.admits(try url("https://example.org.evil.test/")))
        let plain = CredentialScope(seeds: [try url("http://127.0.0.1:8080/")], allowedHosts: [try #require(HostPattern("127.0.0.2"))])
        #expect(plain.admits(try url("http://127.0.0.1:8080/x")))
        #expect(!plain.admits(try url("http://127.0.0.1:8081/x")))
        #expect(plain.admits(try url("http://127.0.0.2:9/x")))
    }

    func credentials(headers: [CrawlCredentials.Field] = [], login: Login? = nil, jar: CookieJar = CookieJar(publicSuffixes: nil))
        throws -> CrawlCredentials
    {
        let seeds = [try url("https://docs.example.org/")]
        return CrawlCredentials(seeds: seeds, allowedHosts: [], headers: headers, login: login, jar: jar)
    }

    @Test func theUsersHeadersAndCookieGoInScopeOnly() throws {
        let given = try credentials(headers: [
            .init(name: "Authorization", value: "Bearer T"), .init(name: "Cookie", value: "sid=S; lang=en"),
        ])
        let inside = given.fields(for: try url("https://docs.example.org/a"), method: "GET")
        #expect(inside.contains(.init(name: "Authorization", value: "Bearer T")))
        #expect(inside.first { $0.name == "Cookie" }?.value == "sid=S; lang=en")
        #expect(given.fields(for: try url("https://cdn.example.net/a.png"), method: "GET").isEmpty)
        #expect(given.fields(for: try url("http://docs.example.org/a"), method: "GET").isEmpty)
        #expect(given.carriesCredentials)
        #expect(given.fieldNames.isSuperset(of: ["authorization", "cookie"]))
    }

    @Test func aFingerprintNamesWhatTheUserGaveNotWhatTheSiteSet() throws {
        let jar = CookieJar(publicSuffixes: nil)
        let given = try credentials(headers: [.init(name: "X-Api-Key", value: "K1")], jar: jar)
        let page = try url("https://docs.example.org/a")
        let fingerprint = try #require(given.fingerprint(for: page))
        #expect(!fingerprint.contains("K1"))
        _ = given.received(setCookies: ["visit=2"], from: page)
        #expect(given.fingerprint(for: page) == fingerprint)
        #expect(given.fingerprint(for: try url("https://cdn.example.net/")) == nil)
        #expect(try credentials(headers: [.init(name: "X-Api-Key", value: "K2")]).fingerprint(for: page) != fingerprint)
        #expect(try credentials().fingerprint(for: page) == nil, "no credentials given: responses are not private")
    }

    @Test func deletingACookieTheUserGaveEndsTheSession() throws {
        let given = try credentials(headers: [.init(name: "Cookie", value: "sid=S")])
        let page = try url("https://docs.example.org/a")
        #expect(given.received(setCookies: ["other=1"], from: page) == .fine)
        #expect(given.received(setCookies: ["sid=S2; Path=/"], from: page) == .fine, "a renewed session goes on")
        #expect(given.received(setCookies: ["sid=; Max-Age=0; Path=/"], from: page) == .sessionEnded(cookie: "sid"))
        let siteSession = try credentials()
        _ = siteSession.received(setCookies: ["session=1; Path=/"], from: page)
        #expect(siteSession.holdsSession(for: page) && !siteSession.carriesCredentials)
        #expect(siteSession.received(setCookies: ["session=; Max-Age=0; Path=/"], from: page) == .fine, "the site's own cookie")
    }

    @Test func aChallengeIsAnsweredForTheScopeOnlyAndNotWhenATokenWasGiven() throws {
        let login = Login(user: "alice", password: "pw")
        let withLogin = try credentials(login: login)
        let challenge = [#"Basic realm="docs""#]
        #expect(!withLogin.challenged(challenge, url: try url("https://other.example.net/"), sent: nil))
        #expect(withLogin.challenged(challenge, url: try url("https://docs.example.org/a"), sent: nil))
        #expect(withLogin.fields(for: try url("https://docs.example.org/b"), method: "GET").contains { $0.name == "Authorization" })
        let withToken = try credentials(headers: [.init(name: "Authorization", value: "Bearer T")], login: login)
        #expect(!withToken.challenged(challenge, url: try url("https://docs.example.org/a"), sent: "Bearer T"))
    }
}

@Suite("Key stretching")
struct KeyStretchingTests {
    /// RFC 7914 §11's PBKDF2-HMAC-SHA256 test vector (its first 32 bytes).
    @Test func pbkdf2MatchesTheRFCVector() {
        let key = KeyStretching.derive(Array("passwd".utf8), salt: Array("salt".utf8), iterations: 1)
        #expect(Hex.string(key) == "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc")
        let stretched = KeyStretching.derive(Array("Password".utf8), salt: Array("NaCl".utf8), iterations: 80_000)
        #expect(Hex.string(stretched) == "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56")
    }
}
