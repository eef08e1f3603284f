import Crypto
import Foundation
import MirrorCore
public import NIOHTTP1

/// RFC 9111 decisions, as pure functions of headers and times. No I/O.
public struct CachePolicy: Sendable {
    /// A shared cache (a proxy) obeys `private`, `s-maxage`, `proxy-revalidate` and the
    /// Authorization rule; a private cache (a user's crawler) may store `private` responses.
    public var isShared: Bool
    /// Heuristic freshness as a fraction of the time since Last-Modified (§4.2.2).
    public var heuristicFraction: Double = 0.1
    /// A targeted field (RFC 9213) whose directives, when a response carries it with any, this
    /// cache obeys instead of Cache-Control and Expires: `CDN-Cache-Control` for a reverse
    /// proxy, which stands where a CDN would. Nil for a cache that is not such a target.
    public var targetedField: String?
    /// Store every complete response to a GET, whatever its directives say (`no-store`, no
    /// freshness at all): a recording, which must replay what the program received. Whether a
    /// stored response may answer without the origin is still RFC 9111's decision.
    public var storesEverything = false

    public init(isShared: Bool = false) {
        self.isShared = isShared
    }

    /// Status codes that are cacheable by heuristic freshness (RFC 9110 §15.1).
    public static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]
    /// Status codes this cache understands, for `must-understand` (§5.2.2.3).
    static let understood: Set<Int> = heuristicallyCacheable.union([302, 303, 307, 400, 403, 500, 502, 503, 504])
    /// Connection-specific fields never stored or forwarded (§3.1, RFC 9110 §7.6.1).
    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade", "trailer",
        "proxy-authenticate", "proxy-authorization", "proxy-authentication-info",
    ]

    /// Fields that hand a visitor a session: never stored, so that a replay never gives one
    /// visitor's cookies to another. The caller that wants them reads `CacheResponse.setCookies`.
    public static let neverStored: Set<String> = ["set-cookie", "set-cookie2"]

    /// Request fields that carry credentials. Their values are stored nowhere, not even in a
    /// Vary key (where a digest of them stands instead).
    public static let credentialFields: Set<String> = ["authorization", "cookie", "proxy-authorization"]

    // MARK: §3 Storing responses

    /// Whether a response may be stored at all (§3).
    public func canStore(method: HTTPMethod, request: HTTPHeaders, status: Int, response: HTTPHeaders) -> Bool {
        guard method == .GET else { return false }  // HEAD is answered from GET entries.
        guard status >= 200, status != 206, status != 304 else { return false }
        // §4.1: a Vary with a "*" member, alone or in a list, never matches.
        if HTTPList.members(response["vary"]).contains("*") { return false }
        if storesEverything { return true }
        let requestControl = CacheControl(request, isRequest: true)
        let (control, obeysExpires) = responseControl(response)
        if requestControl.noStore { return false }
        if control.has("must-understand") {
            guard Self.understood.contains(status) else { return false }
        } else if control.noStore {
            return false
        }
        if isShared && control.isPrivate { return false }
        if isShared, request.contains(name: "authorization"),
            !(control.isPublic || control.mustRevalidate || control.sharedMaxAge != nil)
        {
            return false
        }
        return control.isPublic || (!isShared && control.isPrivate)
            || (obeysExpires && response.contains(name: "expires")) || control.maxAge != nil
            || (isShared && control.sharedMaxAge != nil)
            || Self.heuristicallyCacheable.contains(status)
    }

    /// The directives of a response for this cache: its targeted field's, when it has a valid
    /// one (then Expires is not obeyed either, RFC 9213 §2.2), otherwise its Cache-Control's.
    func responseControl(_ headers: HTTPHeaders) -> (control: CacheControl, obeysExpires: Bool) {
        if let targetedField {
            let value = headers[targetedField].joined(separator: ", ")
            if StructuredDictionary.isValid(value, integerKeys: Self.deltaSecondsDirectives) { return (CacheControl(value), false) }
        }
        return (CacheControl(headers), true)
    }

    /// Directives whose value is a number of seconds: Integers in a targeted field.
    static let deltaSecondsDirectives: Set<String> = ["max-age", "s-maxage", "stale-if-error", "stale-while-revalidate"]

    /// The headers worth storing: everything but hop-by-hop fields and those the Connection header names.
    public static func storableHeaders(_ headers: HTTPHeaders) -> HTTPHeaders {
        // The names Connection lists are one or two ("keep-alive"): searched in order, not hashed
        // into a set for every response.
        let named = HTTPList.members(headers["connection"]).map { $0.lowercased() }
        var kept = HTTPHeaders()
        kept.reserveCapacity(headers.count)
        for (name, value) in headers {
            let lower = name.lowercased()
            if !hopByHop.contains(lower) && !neverStored.contains(lower) && !named.contains(lower) { kept.add(name: name, value: value) }
        }
        return kept
    }

    // MARK: §4.2 Freshness

    /// How long the response stays fresh, in seconds (§4.2.1); 0 when it is stale from the start.
    public func freshnessLifetime(_ head: CachedResponseHead) -> Double {
        let (control, obeysExpires) = responseControl(head.headers)
        if isShared, let shared = control.sharedMaxAge { return Double(shared) }
        if let maxAge = control.maxAge { return Double(maxAge) }
        if obeysExpires && head.headers.contains(name: "expires") {
            // An invalid Expires (e.g. "0", or two of them) means already expired.
            let lines = head.headers["expires"]
            guard lines.count == 1, let expires = Self.date(lines[0]) else { return 0 }
            let date = head.headers.first(name: "date").flatMap(Self.date) ?? head.responseTime
            return max(0, expires - date)
        }
        guard Self.heuristicallyCacheable.contains(head.status) || control.isPublic,
            let modified = head.headers.first(name: "last-modified").flatMap(Self.date)
        else { return 0 }
        let date = head.headers.first(name: "date").flatMap(Self.date) ?? head.responseTime
        return max(0, (date - modified) * heuristicFraction)
    }

    /// The response's current age in seconds (§4.2.3).
    public func currentAge(_ head: CachedResponseHead, now: Double) -> Double {
        let date = head.headers.first(name: "date").flatMap(Self.date) ?? head.responseTime
        // Age is delta-seconds: a non-negative integer; anything else is ignored. Of a list,
        // only the first member counts (§5.1). One past 2^31 is taken as 2^31 (§1.2.2), so that
        // the age stays finite and fits the `Age` the cache writes (`Age: 1` and 400 zeros read
        // as a Double is infinite).
        let ageValue =
            HTTPList.members(head.headers["age"]).first.flatMap { text -> Double? in
                let digits = text.trimmingASCIIWhitespace()
                guard !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit) else { return nil }
                return min(Double(digits) ?? .infinity, Self.greatestDeltaSeconds)
            } ?? 0
        let apparentAge = max(0, head.responseTime - date)
        let responseDelay = max(0, head.responseTime - head.requestTime)
        let correctedInitialAge = max(apparentAge, max(0, ageValue) + responseDelay)
        return correctedInitialAge + max(0, now - head.responseTime)
    }

    /// The delta-seconds a value too large to represent is taken as (RFC 9111 §1.2.2).
    static let greatestDeltaSeconds: Double = 2_147_483_648

    // MARK: §4 Reuse

    /// Whether a stored response (already matched by URL and Vary) may answer `request` now.
    public func reuse(_ head: CachedResponseHead, request: HTTPHeaders, now: Double, mode: CacheMode) -> ReuseDecision {
        let age = currentAge(head, now: now)
        let lifetime = freshnessLifetime(head)
        let stale = age >= lifetime
        switch mode {
        case .offline: return .serve(age: age, stale: stale)
        case .refresh, .reload, .bypass: return .validate
        case .maxAge(let limit) where now - head.responseTime < limit: return .serve(age: age, stale: stale)
        case .maxAge, .standard: break
        }
        let requestControl = CacheControl(request, isRequest: true)
        let control = responseControl(head.headers).control
        let decision: ReuseDecision
        if requestControl.noCache || control.noCache {
            decision = .validate
        } else if let maxAge = requestControl.maxAge, age > Double(maxAge) {
            decision = .validate
        } else if !stale {
            let remaining = lifetime - age
            decision = remaining >= Double(requestControl.minFresh ?? 0) ? .serve(age: age, stale: false) : .validate
        } else if control.mustRevalidate || (isShared && (control.proxyRevalidate || control.sharedMaxAge != nil)) {
            decision = .validate
        } else if let maxStale = requestControl.maxStale, maxStale == Int.max || age - lifetime <= Double(maxStale) {
            decision = .serve(age: age, stale: true)
        } else if let window = control.staleWhileRevalidate, age - lifetime <= Double(window) {
            decision = .serveWhileRevalidating(age: age)
        } else {
            decision = .validate
        }
        if decision == .validate && requestControl.onlyIfCached { return .unsatisfiable }
        return decision
    }

    /// Whether a stale response may answer when the origin failed (5xx or unreachable), per
    /// `stale-if-error` (RFC 5861) in the request or the response.
    public func canServeStaleOnError(_ head: CachedResponseHead, request: HTTPHeaders, now: Double) -> Bool {
        let control = responseControl(head.headers).control
        // §4.2.4: no stale response when no-cache, must-revalidate, or (shared) proxy-revalidate
        // or s-maxage (which implies proxy-revalidate, §5.2.2.10) forbid it.
        if control.mustRevalidate || control.noCache
            || (isShared && (control.proxyRevalidate || control.sharedMaxAge != nil))
        {
            return false
        }
        let staleness = currentAge(head, now: now) - freshnessLifetime(head)
        let allowed = [CacheControl(request, isRequest: true).staleIfError, control.staleIfError].compactMap { $0 }.max()
        guard let allowed else { return false }
        return staleness <= Double(allowed)
    }

    // MARK: §4.3 Validation

    /// The conditional headers that validate a stored response (§4.3.1).
    public func validators(for head: CachedResponseHead) -> HTTPHeaders {
        var headers = HTTPHeaders()
        if let etag = head.headers.first(name: "etag") { headers.add(name: "If-None-Match", value: etag) }
        if let modified = head.headers.first(name: "last-modified") {
            headers.add(name: "If-Modified-Since", value: modified)
        }
        return headers
    }

    /// Whether a stored response can be validated at all (it has an ETag or a Last-Modified).
    public func hasValidators(_ head: CachedResponseHead) -> Bool {
        head.headers.contains(name: "etag") || head.headers.contains(name: "last-modified")
    }

    /// Whether a 304 applies to this stored response (§4.3.4): a strong ETag must be the stored
    /// strong ETag (strong comparison); a weak one matches by weak comparison; without ETags,
    /// the Last-Modified must match.
    public func notModified(_ response: HTTPHeaders, selects head: CachedResponseHead) -> Bool {
        if let tag = response.first(name: "etag") {
            guard let stored = head.headers.first(name: "etag") else { return false }
            if !Self.isWeak(tag) && Self.isWeak(stored) { return false }
            return Self.weakTag(tag) == Self.weakTag(stored)
        }
        if let modified = response.first(name: "last-modified") {
            return head.headers.first(name: "last-modified") == modified
        }
        return true  // a 304 without validators selects the response that was validated
    }

    /// The stored response updated by a 304 or HEAD (§3.2, §4.3.4): its fields replaced by
    /// the new ones, except hop-by-hop fields and those that describe the stored body.
    public func updated(_ head: CachedResponseHead, with fresh: HTTPHeaders, requestTime: Double, responseTime: Double)
        -> CachedResponseHead
    {
        let kept: Set<String> = ["content-length", "content-encoding", "content-range", "transfer-encoding"]
        let incoming = Self.storableHeaders(fresh)
        // The stored Age described the old response; the new one's (if any) replaces it, and the
        // new response time restarts the clock, so an old Age must not be carried forward.
        let replaced = Set(incoming.map { $0.name.lowercased() }).subtracting(kept).union(["age"])
        var headers = HTTPHeaders()
        for (name, value) in head.headers where !replaced.contains(name.lowercased()) {
            headers.add(name: name, value: value)
        }
        for (name, value) in incoming where replaced.contains(name.lowercased()) {
            headers.add(name: name, value: value)
        }
        return CachedResponseHead(status: head.status, headers: headers, requestTime: requestTime, responseTime: responseTime)
    }

    // MARK: §4.4 Invalidation

    /// The URLs whose stored responses an unsafe request invalidates: the target, and the
    /// Location and Content-Location when they are on the same origin (§4.4).
    public func invalidatedURLs(method: HTTPMethod, status: Int, url: String, response: HTTPHeaders) -> [String] {
        guard ![HTTPMethod.GET, .HEAD, .OPTIONS, .TRACE].contains(method), (200..<400).contains(status) else { return [] }
        var urls = [url]
        for name in ["location", "content-location"] {
            guard let value = response.first(name: name), let resolved = Self.sameOrigin(value, base: url) else { continue }
            urls.append(resolved)
        }
        return urls
    }

    // MARK: Vary (§4.1)

    /// The request's values of the fields the stored response's Vary names, in a canonical form;
    /// nil when Vary is `*` or names what is no field name (never matches: a name holding `=` would
    /// read in the key as another field's value). An absent field (`name`) differs from an empty one
    /// (`name=`): §4.1 lets an absent field match only an absent field. A credential field's value
    /// is held as a digest (`name=#…`). With `credentials`, the fingerprint of the credentials the
    /// request carried, the key ends with a `@private=` line: the response is found only by
    /// requests that carry the same ones (§3.5, for every field, not Authorization alone).
    public static func varyKey(responseHeaders: HTTPHeaders, request: HTTPHeaders, credentials: String? = nil) -> String? {
        let members = HTTPList.members(responseHeaders["vary"])
        // Before lower-casing: the Kelvin sign (U+212A) lower-cases to an ASCII `k`.
        if members.contains(where: { $0 == "*" || !HTTPToken.isToken($0) }) { return nil }
        let names = members.map { $0.lowercased() }
        var lines = Set(names).sorted().map { name in
            let values = request[name].map { $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ") }
            if values.isEmpty { return name }
            let value = values.joined(separator: ", ")
            return credentialFields.contains(name) ? "\(name)=#\(digest(value))" : "\(name)=\(value)"
        }
        if let credentials { lines.append(privateMark + credentials) }
        return lines.joined(separator: "\n")
    }

    /// Starts the line of a Vary key that makes its entry private to some credentials.
    static let privateMark = "@private="

    /// `varyKey` as it may leave the cache (a folder's manifest, a bundle, a WARC request record):
    /// without the credentials' fingerprint and the digests of credential fields.
    public static func shareable(varyKey: String) -> String {
        guard varyKey.utf8.contains(UInt8(ascii: "#")) || varyKey.containsBytes(privateMark) else { return varyKey }
        // Lines by bytes: a value ending in CR makes one `Character` with the line feed after it,
        // which hid the next line, a credential's, from a filter on `Character`s.
        return varyKey.utf8.split(separator: UInt8(ascii: "\n")).filter { line in
            !line.starts(with: privateMark.utf8) && !credentialFields.contains { line.starts(with: ($0 + "=#").utf8) }
        }.map(Substring.init).joined(separator: "\n")
    }

    /// A short digest of a credential's value, for matching without keeping it.
    private static func digest(_ value: String) -> String {
        Hex.string(SHA256.hash(data: Array("mirror vary credential\n\(value)".utf8)).prefix(16))
    }

    // MARK: Helpers

    static func date(_ text: String) -> Double? { HTTPDate.parse(text).map(Double.init) }

    static func isWeak(_ tag: String) -> Bool { tag.trimmingASCIIWhitespace().hasPrefix("W/") }

    static func weakTag(_ tag: String) -> Substring {
        let trimmed = tag.trimmingASCIIWhitespace()
        return trimmed.hasPrefix("W/") ? trimmed.dropFirst(2) : trimmed
    }

    /// `value` resolved against `base` when both are on the same scheme, host and port.
    static func sameOrigin(_ value: String, base: String) -> String? {
        guard let baseURL = URL(string: base), let resolved = URL(string: value, relativeTo: baseURL)?.absoluteURL,
            let baseParts = URLParts(base), let parts = URLParts(resolved.absoluteString)
        else { return nil }
        return parts.origin == baseParts.origin ? parts.normalized : nil
    }
}
