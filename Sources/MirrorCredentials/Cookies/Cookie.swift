import MirrorCore

/// A stored cookie (RFC 6265bis §5.7). Times are seconds since 1970, as the cache keeps them.
/// Its description leaves the value out: cookie values are secrets (session tokens).
public struct Cookie: Sendable, Equatable, CustomStringConvertible {
    public var name: String
    public var value: String
    /// Lower-cased, without a leading dot: the host of a host-only cookie, else the domain
    /// whose hosts (it and its subdomains) get it.
    public var domain: String
    public var path: String
    /// Sent to `domain` itself only (no Domain attribute was given).
    public var hostOnly: Bool
    /// Sent over https only (and to loopback hosts, as browsers do).
    public var secure: Bool
    public var httpOnly: Bool
    /// When it expires; nil for a session cookie, which lasts as long as the jar.
    public var expires: Double?
    /// The SameSite attribute as the server wrote it; nil when absent.
    public var sameSite: String?
    /// When it was first stored; a cookie that replaces it keeps this time, so the order of the
    /// `Cookie` header stays put.
    public var creation: Double
    /// When it was last stored or sent: the least recently used go first when the jar is full.
    public var lastAccess: Double
    /// Whether the user gave it (from a cookies.txt file) rather than a server: a crawl that sees
    /// a server delete such a cookie has been logged out.
    public var given: Bool

    public init(
        name: String, value: String, domain: String, path: String = "/", hostOnly: Bool = true, secure: Bool = false,
        httpOnly: Bool = false, expires: Double? = nil, sameSite: String? = nil, creation: Double, lastAccess: Double? = nil,
        given: Bool = false
    ) {
        self.name = name
        self.value = value
        // By bytes: a mark after the dot makes one `Character` with it, and the dot stayed.
        let lowered = domain.lowercased()
        self.domain = lowered.utf8.first == UInt8(ascii: ".") ? String(Substring(lowered.utf8.dropFirst())) : lowered
        self.path = path
        self.hostOnly = hostOnly
        self.secure = secure
        self.httpOnly = httpOnly
        self.expires = expires
        self.sameSite = sameSite
        self.creation = creation
        self.lastAccess = lastAccess ?? creation
        self.given = given
    }

    /// Whether it has expired at `now` (a session cookie never does).
    public func isExpired(at now: Double) -> Bool {
        expires.map { $0 <= now } ?? false
    }

    /// Whether it goes to `host` (§5.1.3): a host-only cookie to its host alone, a domain cookie
    /// to its domain and the host names under it.
    public func domainMatches(_ host: String) -> Bool {
        hostOnly ? host.bytesEqual(domain) : CookieRules.domainMatches(host: host, domain: domain)
    }

    /// Whether a stored cookie with these keys is the one this cookie replaces (§5.7 step 22).
    func isSameSlot(as other: Cookie) -> Bool {
        name == other.name && domain == other.domain && path == other.path && hostOnly == other.hostOnly
    }

    public var description: String {
        "\(name) for \(hostOnly ? "" : ".")\(domain)\(path)"
    }
}
