import Crypto
import Foundation
public import MirrorCore
import MirrorLock

/// Answers HTTP authentication challenges with one login (`--user`), origin by origin: once an
/// origin has asked (401 with `WWW-Authenticate: Basic` or `Digest`), every later request to it
/// carries the answer at once. The caller decides which origins may be answered at all
/// (`CredentialScope`).
public final class Authenticator: Sendable {
    private let login: Login
    private let origins = Locked<[String: Scheme]>([:])

    /// What an origin asked for.
    private enum Scheme {
        case basic
        case digest(DigestChallenge, count: Int)
    }

    public init(login: Login) {
        self.login = login
    }

    /// What identifies the login, for the fingerprint of a crawl's credentials.
    var identity: String { "\(login.user):\(login.password)" }

    /// The `Authorization` value for a request to `url`, once its origin has asked for one.
    public func authorization(method: String, url: URLParts) -> String? {
        origins.withLock { origins -> String? in
            switch origins[url.origin] {
            case nil:
                return nil
            case .basic:
                return "Basic " + Data("\(login.user):\(login.password)".utf8).base64EncodedString()
            case .digest(let challenge, let count):
                origins[url.origin] = .digest(challenge, count: count + 1)
                let cnonce = Hex.string((0..<8).map { _ in UInt8.random(in: 0...255) })
                return challenge.authorization(login: login, method: method, url: url, count: count + 1, cnonce: cnonce)
            }
        }
    }

    /// The origin of `url` answered 401 with `challenges` to a request that carried
    /// `sent` (its `Authorization`, or nil). True when sending it again can succeed: the first
    /// challenge of a scheme this class answers, or a Digest nonce gone stale. False when the
    /// login was refused, or nothing here answers the challenge.
    public func challenged(_ challenges: [AuthenticationChallenge], url: URLParts, sent: String?) -> Bool {
        let digest = challenges.first { $0.scheme == "digest" }.flatMap(DigestChallenge.init)
        let basic = challenges.contains { $0.scheme == "basic" }
        return origins.withLock { origins in
            if let digest, sent == nil || (digest.stale && sent?.hasPrefix("Digest ") == true) {
                origins[url.origin] = .digest(digest, count: 0)
                return true
            }
            if basic, sent == nil {
                origins[url.origin] = .basic
                return true
            }
            return false
        }
    }
}

/// A Digest challenge (RFC 7616) and the answers to it.
struct DigestChallenge {
    let realm: String
    let nonce: String
    let opaque: String?
    let algorithm: String
    /// `auth` when the server offers it; nil for RFC 2069's form without qop.
    let qop: String?
    let stale: Bool

    init?(_ challenge: AuthenticationChallenge) {
        guard let realm = challenge.realm, let nonce = challenge.parameters["nonce"] else { return nil }
        let algorithm = (challenge.parameters["algorithm"] ?? "MD5").uppercased()
        guard ["MD5", "MD5-SESS", "SHA-256", "SHA-256-SESS"].contains(algorithm) else { return nil }
        let offered = (challenge.parameters["qop"] ?? "").utf8.split(separator: UInt8(ascii: ","))
            .map { Substring($0).trimmingASCIIWhitespace().lowercased() }
        if challenge.parameters["qop"] != nil && !offered.contains("auth") { return nil }  // auth-int only
        self.realm = realm
        self.nonce = nonce
        opaque = challenge.parameters["opaque"]
        self.algorithm = algorithm
        qop = offered.contains("auth") ? "auth" : nil
        stale = challenge.parameters["stale"]?.lowercased() == "true"
    }

    /// The `Authorization` value of the `count`th request with this nonce, `cnonce` the client's nonce.
    func authorization(login: Login, method: String, url: URLParts, count: Int, cnonce: String) -> String {
        let uri = (url.path.isEmpty ? "/" : url.path) + (url.query.map { "?" + $0 } ?? "")
        let nc = String(String(count, radix: 16).suffix(8)).leftPadded(to: 8)
        var secret = hash("\(login.user):\(realm):\(login.password)")
        if algorithm.hasSuffix("-SESS") { secret = hash("\(secret):\(nonce):\(cnonce)") }
        let request = hash("\(method):\(uri)")
        let response = qop.map { hash("\(secret):\(nonce):\(nc):\(cnonce):\($0):\(request)") } ?? hash("\(secret):\(nonce):\(request)")
        var fields = [
            "username=\(quoted(login.user))", "realm=\(quoted(realm))", "nonce=\(quoted(nonce))", "uri=\(quoted(uri))",
            "algorithm=\(algorithm)", "response=\"\(response)\"",
        ]
        if let qop { fields += ["qop=\(qop)", "nc=\(nc)", "cnonce=\"\(cnonce)\""] }
        if let opaque { fields.append("opaque=\(quoted(opaque))") }
        return "Digest " + fields.joined(separator: ", ")
    }

    private func hash(_ text: String) -> String {
        algorithm.hasPrefix("SHA-256")
            ? Hex.string(SHA256.hash(data: Array(text.utf8))) : Hex.string(Insecure.MD5.hash(data: Array(text.utf8)))
    }

    /// Scalar by scalar: a mark after a quote makes one `Character` with it, which a search for
    /// the quote passes over.
    private func quoted(_ value: String) -> String {
        var quoted = "\"".unicodeScalars
        for scalar in value.unicodeScalars {
            if scalar == "\"" || scalar == "\\" { quoted.append("\\") }
            quoted.append(scalar)
        }
        return String(quoted) + "\""
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
