import Foundation
import MirrorCore
import MirrorTestSupport
import Testing

@testable import MirrorCredentials

@Suite("HTTP authentication")
struct AuthenticationTests {
    @Test func challengesAreReadWithTheirParameters() {
        let challenges = AuthenticationChallenge.parse([
            #"Basic realm="Team \"docs\"", charset="UTF-8""#,
            #"Newauth realm="apps", type=1, title="Login to \"apps\"", Digest realm="x", nonce="n1", qop="auth,auth-int""#,
            "Negotiate abc123==",
        ])
        #expect(challenges.map(\.scheme) == ["basic", "newauth", "digest", "negotiate"])
        #expect(challenges[0].realm == #"Team "docs""#)
        #expect(challenges[0].parameters["charset"] == "UTF-8")
        #expect(challenges[1].parameters == ["realm": "apps", "type": "1", "title": #"Login to "apps""#])
        #expect(challenges[2].parameters["nonce"] == "n1" && challenges[2].parameters["qop"] == "auth,auth-int")
        #expect(challenges[3].parameters.isEmpty)
        #expect(AuthenticationChallenge.parse(["", ",,", "=x"]).isEmpty)
    }

    /// RFC 7616 §3.9.1: the same request answered with SHA-256 and with MD5.
    @Test(arguments: [
        ("SHA-256", "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"),
        ("MD5", "8ca523f5e9506fed4657c9700eebdbec"),
    ])
    func digestAnswersAsTheRFCExample(algorithm: String, response: String) throws {
        let challenge = try #require(
            AuthenticationChallenge.parse([
                #"Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=\#(algorithm), "#
                    + #"nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS""#
            ]).first.flatMap(DigestChallenge.init))
        let answer = challenge.authorization(
            login: Login(user: "Mufasa", password: "Circle of Life"), method: "GET",
            url: try #require(URLParts("http://www.example.org/dir/index.html")), count: 1,
            cnonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ")
        #expect(answer.contains("response=\"\(response)\""), "\(answer)")
        #expect(answer.contains("nc=00000001") && answer.contains("qop=auth,") && answer.contains(#"uri="/dir/index.html""#))
        #expect(answer.contains(#"opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS""#))
    }

    @Test func anOriginIsAnsweredOnceItAskedAndARefusalIsFinal() throws {
        let authenticator = Authenticator(login: Login(user: "alice", password: "secret"))
        let url = try #require(URLParts("https://docs.example.org/a"))
        #expect(authenticator.authorization(method: "GET", url: url) == nil)
        let basic = AuthenticationChallenge.parse([#"Basic realm="docs""#])
        #expect(authenticator.challenged(basic, url: url, sent: nil))
        let answer = try #require(authenticator.authorization(method: "GET", url: url))
        #expect(answer == "Basic " + Data("alice:secret".utf8).base64EncodedString())
        #expect(!authenticator.challenged(basic, url: url, sent: answer), "the same login refused: not sent again")
        #expect(authenticator.authorization(method: "GET", url: try #require(URLParts("https://other.example.org/"))) == nil)

        let digest = AuthenticationChallenge.parse([#"Digest realm="r", nonce="one", qop="auth""#])
        #expect(authenticator.challenged(digest, url: url, sent: nil))
        let first = try #require(authenticator.authorization(method: "GET", url: url))
        let second = try #require(authenticator.authorization(method: "GET", url: url))
        #expect(first.contains("nc=00000001") && second.contains("nc=00000002"))
        let stale = AuthenticationChallenge.parse([#"Digest realm="r", nonce="two", qop="auth", stale=true"#])
        #expect(authenticator.challenged(stale, url: url, sent: second))
        #expect(try #require(authenticator.authorization(method: "GET", url: url)).contains(#"nonce="two""#))
        #expect(!authenticator.challenged(AuthenticationChallenge.parse([#"Digest realm="r", nonce="three""#]), url: url, sent: second))
    }

    @Test func aPasswordComesFromTheFirstSourceThatHasOne() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("login-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "from-file\r\nsecond line\n".write(toFile: folder + "/password", atomically: true, encoding: .utf8)
        try "\n".write(toFile: folder + "/empty", atomically: true, encoding: .utf8)
        let netrc = try Netrc("machine docs.example.org login alice password from-netrc\n", path: "netrc")
        #expect(try Login.resolve(user: "alice", from: [.file(folder + "/password"), .environment("from-env")]).password == "from-file")
        #expect(
            try Login.resolve(user: "alice", from: [.environment(""), .netrc(netrc, hosts: ["docs.example.org"])]).password
                == "from-netrc")
        #expect(throws: LoginError.noPassword(user: "bob")) {
            try Login.resolve(user: "bob", from: [.netrc(netrc, hosts: ["docs.example.org"])])
        }
        #expect(throws: LoginError.emptyPasswordFile(path: folder + "/empty")) {
            try Login.resolve(user: "a", from: [.file(folder + "/empty")])
        }
        #expect(throws: LoginError.self) { try Login.resolve(user: "a", from: [.file(folder + "/missing")]) }
    }

    /// Found by the `credentials` fuzz target, slow on it: each scheme of a field without commas
    /// (`a b c …`) looked for a token68 as far as the field's end, quadratic in its length.
    @Test(.timeLimit(.minutes(TestTiming.minutes(1)))) func aFieldOfManySchemesIsReadInLinearTime() {
        let many = AuthenticationChallenge.parse([String(repeating: "a ", count: 100_000) + "b=c"])
        #expect(many.count == 100_000 && many.last?.parameters == ["b": "c"])
        let padded = AuthenticationChallenge.parse(["Basic abc= = , realm=x", "Bearer a b=c"])
        #expect(padded.map(\.scheme) == ["basic", "bearer", "a"])
        #expect(padded[0].parameters == ["realm": "x"] && padded[2].parameters == ["b": "c"])
    }
}
