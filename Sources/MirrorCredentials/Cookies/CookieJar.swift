public import MirrorCore
import MirrorLock

/// The cookies of a crawl (RFC 6265bis): what servers set, and what the user gave in a
/// cookies.txt file, sent back to the hosts and paths they belong to. Safe to share between
/// the crawl's tasks.
public final class CookieJar: Sendable {
    /// Refuses domain cookies for `co.uk` and the like; nil when the system has no list.
    public let publicSuffixes: PublicSuffixList?
    /// The jar's clock: seconds since 1970.
    public let now: @Sendable () -> Double
    private let store = Locked(CookieStore())

    /// - Parameters:
    ///   - publicSuffixes: without it, a Domain attribute is taken only when it is the host itself.
    ///   - now: the time, in seconds since 1970 (tests set their own).
    public init(publicSuffixes: PublicSuffixList?, now: @escaping @Sendable () -> Double = { WallClock.now() }) {
        self.publicSuffixes = publicSuffixes
        self.now = now
    }

    /// Applies the `Set-Cookie` values of a response to a request for `url`, in order; says what
    /// each one did.
    public func receive(_ setCookieValues: [String], from url: URLParts) -> [Change] {
        let now = now()
        let secureContext = CookieRules.isSecure(scheme: url.scheme, host: url.host)
        return setCookieValues.map { value in
            do throws(CookieRefusal) {
                let cookie = try Cookie(try SetCookieParser.parse(value, now: now), from: url, now: now, publicSuffixes: publicSuffixes)
                return store.withLock { $0.store(cookie, secureContext: secureContext, now: now) }
            } catch {
                return .refused(reason: error.reason)
            }
        }
    }

    /// The `Cookie` header for a request to `url` (`a=1; b=2`); nil when no cookie goes there.
    public func cookieHeader(for url: URLParts) -> String? {
        let now = now()
        let cookies = store.withLock { store -> [Cookie] in
            // Most crawls hold none: every request asks.
            guard store.count > 0 else { return [] }
            return store.cookies(
                host: url.host, path: CookieRules.requestPath(url.path),
                secureContext: CookieRules.isSecure(scheme: url.scheme, host: url.host), now: now)
        }
        guard !cookies.isEmpty else { return nil }
        return cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Adds cookies the user gave (a cookies.txt file), replacing as a server's would; a domain
    /// cookie for a public suffix is refused.
    @discardableResult
    public func add(_ cookies: [Cookie]) -> [Change] {
        let now = now()
        return cookies.map { cookie in
            if !cookie.hostOnly, publicSuffixes?.isPublicSuffix(cookie.domain) == true {
                return .refused(
                    reason: "cookie \"\(cookie.name)\" is for the domain \(cookie.domain), a public suffix shared by unrelated sites")
            }
            return store.withLock { $0.store(cookie, secureContext: true, now: now) }
        }
    }

    /// The unexpired cookies, by domain, then in the order they were first stored.
    public var cookies: [Cookie] {
        let now = now()
        return store.withLock { $0.all(now: now) }
    }

    public func removeExpired() {
        let now = now()
        store.withLock { $0.removeExpired(now: now) }
    }
}
