import Crypto
public import MirrorCore
import MirrorLock

/// What lets a crawl into a private site — the user's headers (`--header`), login (`--user`) and
/// cookies (`--cookies`, a `Cookie` header, and what the site sets) — and where each may go:
/// every credential field of a request is made here, for the origins of `scope` only.
public final class CrawlCredentials: Sendable {
    public let scope: CredentialScope
    public let jar: CookieJar
    /// The user's headers but `Cookie`, whose pairs are in the jar.
    private let headers: [Field]
    private let authenticator: Authenticator?
    /// Whether the user gave anything: then the crawl's responses are private to it.
    public let carriesCredentials: Bool
    /// Names of the request fields that carry credentials of this crawl: a request made elsewhere
    /// (the browser's) has its own removed before `fields(for:method:)` are added. Made once: every
    /// request asks.
    public let fieldNames: Set<String>
    /// The fingerprint of what the user gave, per origin (`fingerprint(for:)`).
    private let fingerprints = Locked<[String: String]>([:])

    /// A request field.
    public struct Field: Sendable, Equatable {
        public let name: String
        public let value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// - Parameters:
    ///   - seeds, allowedHosts: the crawl's scope (`CredentialScope`).
    ///   - headers: the user's extra request fields; the pairs of a `Cookie` among them join the
    ///     jar as cookies the user gave, for the seeds' hosts and the allowed ones.
    ///   - login: answers the Basic and Digest challenges of the scope's origins.
    ///   - jar: the crawl's cookies, with those the user gave already in it.
    public init(seeds: [URLParts], allowedHosts: [HostPattern], headers: [Field], login: Login?, jar: CookieJar) {
        scope = CredentialScope(seeds: seeds, allowedHosts: allowedHosts)
        self.jar = jar
        let cookieFields = headers.filter { $0.name.lowercased() == "cookie" }
        self.headers = headers.filter { $0.name.lowercased() != "cookie" }
        fieldNames = Set(self.headers.map { $0.name.lowercased() } + ["authorization", "cookie", "proxy-authorization"])
        authenticator = login.map(Authenticator.init)
        let pairs = cookieFields.flatMap { Self.pairs(of: $0.value) }
        if !pairs.isEmpty {
            jar.add(Self.cookies(pairs, seeds: seeds, allowedHosts: allowedHosts, now: jar.now()))
        }
        carriesCredentials = !headers.isEmpty || login != nil || jar.cookies.contains { $0.given }
    }

    /// Whether requests to `url` carry a login: credentials the user gave, or cookies of the site
    /// (a session it opened). A crawl that holds a session does not follow links that end it.
    public func holdsSession(for url: URLParts) -> Bool {
        carriesCredentials || (scope.admits(url) && jar.cookieHeader(for: url) != nil)
    }

    /// The credential fields of a request to `url`: the user's headers, the answer to its origin's
    /// authentication challenge, and the cookies that match it — none outside the scope.
    public func fields(for url: URLParts, method: String) -> [Field] {
        guard scope.admits(url) else { return [] }
        var fields = headers
        let hasAuthorization = headers.contains { $0.name.lowercased() == "authorization" }
        if !hasAuthorization, let answer = authenticator?.authorization(method: method, url: url) {
            fields.append(Field(name: "Authorization", value: answer))
        }
        if let cookies = jar.cookieHeader(for: url) { fields.append(Field(name: "Cookie", value: cookies)) }
        return fields
    }

    /// A fingerprint of what the user gave that goes to `url`'s origin, nil when nothing does:
    /// the responses of a crawl with credentials are stored private to it. Cookies the site sets
    /// during the crawl are left out, so that a nightly crawl with the same login finds its cache.
    /// It is a slow hash (`KeyStretching`), salted with the origin: a cache folder that travels
    /// (a CI cache) is no help in guessing a password.
    public func fingerprint(for url: URLParts) -> String? {
        guard carriesCredentials, scope.admits(url) else { return nil }
        // Made under the lock: the crawl's first requests to an origin would otherwise each make it.
        return fingerprints.withLock { known in
            if let fingerprint = known[url.origin] { return fingerprint }
            var material = headers.map { "header \($0.name.lowercased()): \($0.value)\n" }.sorted()
            if let authenticator { material.append("login \(authenticator.identity)\n") }
            material += jar.cookies.filter { $0.given && $0.domainMatches(url.host) }
                .map { "cookie \($0.domain) \($0.path) \($0.name)=\($0.value)\n" }.sorted()
            let fingerprint = Hex.string(
                KeyStretching.derive(
                    Array(material.joined().utf8),
                    salt: Array("mirror credentials 1 \(url.origin)".utf8)
                ).prefix(16))
            known[url.origin] = fingerprint
            return fingerprint
        }
    }

    /// What a response to a request for `url` meant for the login.
    public enum Outcome: Sendable, Equatable {
        case fine
        /// The response deleted a cookie the user gave: the site ended the session.
        case sessionEnded(cookie: String)
    }

    /// Keeps the cookies a response to `url` set; says when it deleted one the user gave.
    public func received(setCookies: [String], from url: URLParts) -> Outcome {
        guard !setCookies.isEmpty else { return .fine }
        for change in jar.receive(setCookies, from: url) {
            if case .deleted(let cookie) = change, cookie.given { return .sessionEnded(cookie: cookie.name) }
        }
        return .fine
    }

    /// The origin of `url` answered 401 with these `WWW-Authenticate` values to a request that
    /// carried `sent` as its `Authorization`: true when sending it again with the login can succeed.
    public func challenged(_ wwwAuthenticate: [String], url: URLParts, sent: String?) -> Bool {
        guard let authenticator, scope.admits(url), !headers.contains(where: { $0.name.lowercased() == "authorization" }) else {
            return false
        }
        return authenticator.challenged(AuthenticationChallenge.parse(wwwAuthenticate), url: url, sent: sent)
    }

    /// The name=value pairs of a `Cookie` field.
    private static func pairs(of value: String) -> [(name: String, value: String)] {
        value.split(separator: ";").compactMap { pair in
            let trimmed = pair.trimmingASCIIWhitespace()
            guard let equals = trimmed.firstIndex(of: "="), equals != trimmed.startIndex else { return nil }
            return (String(trimmed[..<equals]), String(trimmed[trimmed.index(after: equals)...]))
        }
    }

    /// The user's `Cookie` pairs as cookies of the seeds' hosts and the allowed ones (a
    /// `*.example.org` pattern: a domain cookie of example.org).
    private static func cookies(
        _ pairs: [(name: String, value: String)], seeds: [URLParts], allowedHosts: [HostPattern],
        now: Double
    ) -> [Cookie] {
        var places = Set(seeds.map { "h \($0.host)" })
        for pattern in allowedHosts { places.insert((pattern.includesSubdomains ? "d " : "h ") + pattern.host) }
        return places.sorted().flatMap { place in
            pairs.map { pair in
                Cookie(
                    name: pair.name, value: pair.value, domain: String(place.dropFirst(2)), path: "/", hostOnly: place.hasPrefix("h "),
                    secure: false, httpOnly: false, expires: nil, sameSite: nil, creation: now, lastAccess: now, given: true)
            }
        }
    }
}
