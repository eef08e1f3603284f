/// The cookies of a jar, by domain, and the steps of RFC 6265bis §5.7 and §5.8.3 that depend on
/// what is held: replacing, deleting, the Secure cookies that http may not touch, the limits, and
/// the cookies a request gets. Not thread-safe: `CookieJar` keeps it behind a lock.
struct CookieStore {
    /// Browsers keep about this many per domain and in all (RFC 6265bis §6.1 asks for at least
    /// 50 and 3000).
    static let perDomainLimit = 50, totalLimit = 3000

    /// The cookies of each domain (a host-only cookie's host), in the order they were first stored.
    private var byDomain: [String: [Cookie]] = [:]
    private(set) var count = 0

    /// Stores `cookie`, received at `now` over a secure connection or not: it replaces the one
    /// with its name, domain, path and host-only flag (keeping that one's creation time and
    /// `given`), or deletes it when expired.
    mutating func store(_ cookie: Cookie, secureContext: Bool, now: Double) -> CookieJar.Change {
        if !cookie.secure && !secureContext && shadowsSecureCookie(cookie) {
            return .refused(reason: "cookie \"\(cookie.name)\" came over http and would replace a Secure cookie")
        }
        var list = byDomain[cookie.domain, default: []]
        let index = list.firstIndex { $0.isSameSlot(as: cookie) }
        if cookie.isExpired(at: now) {
            guard let index else { return .expiredOnArrival(cookie) }
            let old = list.remove(at: index)
            count -= 1
            byDomain[cookie.domain] = list.isEmpty ? nil : list
            return .deleted(old)
        }
        if let index {
            var new = cookie
            new.creation = list[index].creation
            new.given = list[index].given
            let old = list[index]
            list[index] = new
            byDomain[cookie.domain] = list
            return .replaced(old: old, new: new)
        }
        list.append(cookie)
        count += 1
        byDomain[cookie.domain] = list
        enforceLimits(domain: cookie.domain, now: now)
        return .stored(cookie)
    }

    /// §5.7 step 16: a stored Secure cookie of the same name whose domain is the new one's, a
    /// parent or a child, and whose path covers the new one's.
    private func shadowsSecureCookie(_ cookie: Cookie) -> Bool {
        byDomain.values.contains { list in
            list.contains { old in
                old.secure && old.name == cookie.name
                    && (CookieRules.domainMatches(host: old.domain, domain: cookie.domain)
                        || CookieRules.domainMatches(host: cookie.domain, domain: old.domain))
                    && CookieRules.pathMatches(requestPath: cookie.path, cookiePath: old.path)
            }
        }
    }

    /// Over the limits, the expired go first, then the least recently used: of the domain, then
    /// of the whole store.
    private mutating func enforceLimits(domain: String, now: Double) {
        if let list = byDomain[domain], list.count > Self.perDomainLimit {
            var kept = list.filter { !$0.isExpired(at: now) }
            while kept.count > Self.perDomainLimit {
                kept.remove(at: kept.indices.min { kept[$0].lastAccess < kept[$1].lastAccess }!)
            }
            count -= list.count - kept.count
            byDomain[domain] = kept
        }
        guard count > Self.totalLimit else { return }
        removeExpired(now: now)
        while count > Self.totalLimit {
            let (domain, index) = byDomain.flatMap { key, list in list.indices.map { (key, $0) } }
                .min { byDomain[$0.0]![$0.1].lastAccess < byDomain[$1.0]![$1.1].lastAccess }!
            byDomain[domain]!.remove(at: index)
            if byDomain[domain]!.isEmpty { byDomain[domain] = nil }
            count -= 1
        }
    }

    mutating func removeExpired(now: Double) {
        for (domain, list) in byDomain where list.contains(where: { $0.isExpired(at: now) }) {
            let kept = list.filter { !$0.isExpired(at: now) }
            count -= list.count - kept.count
            byDomain[domain] = kept.isEmpty ? nil : kept
        }
    }

    /// §5.8.3: the unexpired cookies for a request to `host` and `path`, longer paths first, then
    /// the earlier stored; each one's last access becomes `now`.
    mutating func cookies(host: String, path: String, secureContext: Bool, now: Double) -> [Cookie] {
        var found: [(domain: String, index: Int)] = []
        for domain in Self.domains(of: host) {
            for (index, cookie) in (byDomain[domain] ?? []).enumerated()
            where cookie.domainMatches(host) && (!cookie.secure || secureContext) && !cookie.isExpired(at: now)
                && CookieRules.pathMatches(requestPath: path, cookiePath: cookie.path)
            {
                found.append((domain, index))
            }
        }
        for (domain, index) in found { byDomain[domain]![index].lastAccess = now }
        return found.map { byDomain[$0.domain]![$0.index] }.sorted {
            $0.path.utf8.count != $1.path.utf8.count ? $0.path.utf8.count > $1.path.utf8.count : $0.creation < $1.creation
        }
    }

    /// The domains whose cookies may go to `host`: it and its parents (an IP address has none).
    private static func domains(of host: String) -> [String] {
        guard !CookieRules.isIPAddress(host) else { return [host] }
        var domains = [host]
        var rest = Substring(host)
        while let dot = rest.utf8.firstIndex(of: UInt8(ascii: ".")) {
            rest = rest[rest.index(after: dot)...]
            if !rest.isEmpty { domains.append(String(rest)) }
        }
        return domains
    }

    /// The unexpired cookies, by domain, then in the order they were first stored.
    func all(now: Double) -> [Cookie] {
        byDomain.keys.sorted().flatMap { byDomain[$0]!.filter { !$0.isExpired(at: now) } }
    }
}
