import MirrorCore

/// The matching rules of RFC 6265bis §5.1 that the jar applies to hosts and paths.
enum CookieRules {
    /// §5.1.3: `host` is `domain`, or a host name (not an IP address) under it.
    static func domainMatches(host: String, domain: String) -> Bool {
        if host.bytesEqual(domain) { return true }
        return !isIPAddress(host) && host.bytesEnd(with: "." + domain)
    }

    /// §5.1.4: the request path is the cookie's path, or below it.
    static func pathMatches(requestPath: String, cookiePath: String) -> Bool {
        guard requestPath.utf8.starts(with: cookiePath.utf8) else { return false }
        if requestPath.utf8.count == cookiePath.utf8.count || cookiePath.utf8.last == UInt8(ascii: "/") { return true }
        return requestPath.utf8.dropFirst(cookiePath.utf8.count).first == UInt8(ascii: "/")
    }

    /// §5.1.4's default-path: the request path up to its last `/` (not included), or `/`.
    static func defaultPath(_ requestPath: String) -> String {
        guard requestPath.utf8.first == UInt8(ascii: "/"), let last = requestPath.utf8.lastIndex(of: UInt8(ascii: "/")),
            last != requestPath.utf8.startIndex
        else { return "/" }
        return String(requestPath[..<last])
    }

    /// The path a cookie is matched against: the URL's, `/` when empty.
    static func requestPath(_ path: String) -> String {
        path.isEmpty ? "/" : path
    }

    /// An IPv6 literal (`[::1]`) or an IPv4 address (the last label a number, as the URL
    /// standard reads hosts).
    static func isIPAddress(_ host: String) -> Bool {
        let bytes = host.utf8
        if bytes.contains(UInt8(ascii: ":")) { return true }
        // Asked for every request's cookies: the last label is looked at in place.
        let last = bytes.lastIndex(of: UInt8(ascii: ".")).map { bytes[bytes.index(after: $0)...] } ?? bytes[...]
        return !last.isEmpty && last.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// Whether a request to this scheme and host counts as secure for Secure cookies: https, or
    /// a loopback host (127.0.0.0/8, `localhost` and its subdomains, `::1`), which browsers treat
    /// as secure contexts. The tests' servers listen on 127.0.0.1 over http.
    static func isSecure(scheme: String, host: String) -> Bool {
        if scheme == "https" || host == "localhost" || host.bytesEnd(with: ".localhost") || host == "[::1]" || host == "::1" { return true }
        return host.hasPrefix("127.") && isIPAddress(host)
    }
}
