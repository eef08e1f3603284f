import MirrorCredentials

/// The crawl's cookie jar in one tab's browser context, over the DevTools `Storage` domain
/// (browser-wide commands that name the context): before a page loads the context's cookies are
/// cleared and it is given the jar's; once the page has been read, what the page changed comes
/// back into the jar.
///
/// Chromium 156 (Debian's) answers `Storage.setCookies` with success even for a cookie it drops
/// (SameSite=None without Secure, an expired one); it checks no public suffix (the jar does);
/// it caps an expiry at 400 days from now; it binds a cookie to no port or scheme when sending
/// it (a cookie set for `http://127.0.0.1/` goes to every port of that host).
struct BrowserCookies: Sendable {
    let jar: CookieJar
    let context: String
    let devTools: DevToolsPipe

    /// Chromium keeps no cookie longer than this (RFC 6265bis §5.5's 400 days).
    static let longestLife = 400.0 * 86400

    /// Clears the context's cookies, then gives it the jar's unexpired ones; returns those given.
    func give(timeout: Duration) async throws -> [Cookie] {
        try await devTools.call("Storage.clearCookies", ["browserContextId": .string(context)], timeout: timeout)
        let cookies = jar.cookies
        guard !cookies.isEmpty else { return [] }
        try await devTools.call(
            "Storage.setCookies", ["browserContextId": .string(context), "cookies": .array(cookies.map(Self.parameter))],
            timeout: timeout)
        return cookies
    }

    /// Adds to the jar the cookies the context holds that the page set or changed: those that
    /// differ from what it was `given` and from what the jar holds now (so that a cookie another
    /// page has changed in the meantime is not put back as it was). They are cookies no user
    /// gave; one that replaces a given cookie stays given (the jar keeps that). Returns how many.
    @discardableResult
    func keep(given: [Cookie], timeout: Duration) async throws -> Int {
        let held = try await devTools.call("Storage.getCookies", ["browserContextId": .string(context)], timeout: timeout)
        let now = jar.now()
        let known = given + jar.cookies
        let changed = (held["cookies"]?.array ?? []).compactMap { Self.cookie($0, now: now) }.filter { cookie in
            !known.contains { Self.isSame(cookie, $0, now: now) }
        }
        if !changed.isEmpty { jar.add(changed) }
        return changed.count
    }

    /// A `Storage.setCookies` cookie: a host-only one by URL with no `domain` (so Chromium keeps
    /// it for that host alone), a domain one by `.domain`.
    static func parameter(_ cookie: Cookie) -> JSONValue {
        var fields: [String: JSONValue] = [
            "name": .string(cookie.name), "value": .string(cookie.value), "path": .string(cookie.path),
            "secure": .bool(cookie.secure), "httpOnly": .bool(cookie.httpOnly),
        ]
        if cookie.hostOnly {
            let host = cookie.domain.contains(":") && !cookie.domain.hasPrefix("[") ? "[\(cookie.domain)]" : cookie.domain
            fields["url"] = .string((cookie.secure ? "https://" : "http://") + host + (cookie.path.hasPrefix("/") ? cookie.path : "/"))
        } else {
            fields["domain"] = .string("." + cookie.domain)
        }
        if let sameSite = sameSite(cookie.sameSite), sameSite != "None" || cookie.secure {
            // SameSite=None without Secure is dropped by Chromium: without the attribute it is kept (as Lax).
            fields["sameSite"] = .string(sameSite)
        }
        if let expires = cookie.expires { fields["expires"] = .number(expires) }
        return .object(fields)
    }

    /// A cookie of `Storage.getCookies` as the jar's: its domain without the leading dot that
    /// marks a domain cookie; no expiry for a session cookie. Nil for a partitioned cookie (CHIPS,
    /// kept for one top-level site: the jar has no such thing) or one without a domain.
    static func cookie(_ value: JSONValue, now: Double) -> Cookie? {
        guard let name = value["name"]?.string, let cookieValue = value["value"]?.string, let domain = value["domain"]?.string,
            !domain.isEmpty, domain != "."
        else { return nil }
        if let partition = value["partitionKey"], partition != .null { return nil }
        let session = value["session"]?.bool ?? ((value["expires"]?.number ?? -1) < 0)
        return Cookie(
            name: name, value: cookieValue, domain: domain, path: value["path"]?.string ?? "/", hostOnly: !domain.hasPrefix("."),
            secure: value["secure"]?.bool ?? false, httpOnly: value["httpOnly"]?.bool ?? false,
            expires: session ? nil : value["expires"]?.number, sameSite: sameSite(value["sameSite"]?.string),
            creation: now, lastAccess: now, given: false)
    }

    /// The SameSite values Chromium takes, spelled its way; nil for none or another.
    private static func sameSite(_ value: String?) -> String? {
        switch value?.lowercased() {
        case "strict": "Strict"
        case "lax": "Lax"
        case "none": "None"
        default: nil
        }
    }

    /// Whether the browser's `cookie` is `other` unchanged: the same slot, value and flags, and
    /// the same expiry give or take a minute (the browser computes Max-Age at its own time) or
    /// both beyond the browser's cap.
    static func isSame(_ cookie: Cookie, _ other: Cookie, now: Double) -> Bool {
        guard cookie.name == other.name, cookie.domain == other.domain, cookie.path == other.path, cookie.hostOnly == other.hostOnly,
            cookie.value == other.value, cookie.secure == other.secure, cookie.httpOnly == other.httpOnly
        else { return false }
        switch (cookie.expires, other.expires) {
        case (nil, nil): return true
        case (let a?, let b?):
            let cap = now + longestLife - 86400
            return abs(a - b) < 60 || (a >= cap && b >= cap)
        default: return false
        }
    }
}
