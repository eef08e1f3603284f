public import MirrorCore

extension Cookie {
    /// The cookie a `Set-Cookie` makes in a response to `url` at `now`: the steps of RFC 6265bis
    /// §5.7 that depend on the request alone (the jar does those that depend on what it holds).
    public init(_ setCookie: SetCookie, from url: URLParts, now: Double, publicSuffixes: PublicSuffixList?) throws(CookieRefusal) {
        let name = setCookie.name
        // A stored domain has no leading dot (`init` drops it): from `.example.com`, a host-only
        // cookie would be kept for `example.com`, another host.
        guard url.host.utf8.first != UInt8(ascii: ".") else {
            throw CookieRefusal("cookie \"\(name)\" came from \(url.host), a host name starting with a dot")
        }
        let hostOnly = try Self.isHostOnly(setCookie, host: url.host, publicSuffixes: publicSuffixes)
        if setCookie.secure && !CookieRules.isSecure(scheme: url.scheme, host: url.host) {
            throw CookieRefusal("cookie \"\(name)\" is Secure but came over http")
        }
        // By bytes, case-insensitively: a mark after the `-` makes one `Character` with it.
        let prefix = name.utf8.prefix(9).map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
        if prefix.starts(with: "__secure-".utf8) && !setCookie.secure {
            throw CookieRefusal("cookie \"\(name)\" has the __Secure- prefix but no Secure attribute")
        }
        if prefix.starts(with: "__host-".utf8) && !(setCookie.secure && hostOnly && setCookie.path == "/") {
            throw CookieRefusal("cookie \"\(name)\" has the __Host- prefix but is not Secure, host-only and for Path=/")
        }
        self.init(
            name: name, value: setCookie.value, domain: hostOnly ? url.host : setCookie.domain!,
            path: setCookie.path ?? CookieRules.defaultPath(CookieRules.requestPath(url.path)), hostOnly: hostOnly,
            secure: setCookie.secure, httpOnly: setCookie.httpOnly, expires: setCookie.expires, sameSite: setCookie.sameSite,
            creation: now)
    }

    /// Whether the cookie goes to `host` alone. A Domain attribute must cover the host; it makes
    /// a domain cookie unless the host is an IP address (no subdomains) or the domain is a public
    /// suffix (§5.7 step 9), when only a Domain equal to the host is taken, as host-only. With no
    /// public suffix list, `co.uk` cannot be told from `example.co.uk`: only the host itself is taken.
    private static func isHostOnly(_ setCookie: SetCookie, host: String, publicSuffixes: PublicSuffixList?) throws(CookieRefusal) -> Bool {
        guard let domain = setCookie.domain else { return true }
        let name = setCookie.name
        guard CookieRules.domainMatches(host: host, domain: domain) else {
            throw CookieRefusal("cookie \"\(name)\" is for Domain=\(domain), which does not cover \(host)")
        }
        if CookieRules.isIPAddress(host) { return true }
        guard let publicSuffixes else {
            if domain == host { return true }
            throw CookieRefusal(
                "cookie \"\(name)\" is for Domain=\(domain), a parent of \(host), and there is no public suffix list to check it")
        }
        guard publicSuffixes.isPublicSuffix(domain) else { return false }
        if domain == host { return true }
        throw CookieRefusal("cookie \"\(name)\" is for Domain=\(domain), a public suffix shared by unrelated sites")
    }
}
