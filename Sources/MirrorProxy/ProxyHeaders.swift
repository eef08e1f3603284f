import MirrorCache
import MirrorCore
import NIOHTTP1

/// How headers cross the proxy: hop-by-hop fields (and those `Connection` names) stay on
/// their connection, and the proxy adds itself to `Via` both ways (RFC 9110 §7.6).
enum ProxyHeaders {
    /// Conditions and ranges the proxy evaluates itself against a whole response, so that what
    /// it stores is the complete 200 and not a client's 304 or 206.
    static let evaluatedLocally = ["if-match", "if-none-match", "if-modified-since", "if-unmodified-since", "range", "if-range"]

    /// The client's headers as sent upstream: end to end only, no `Host` (the upstream URL gives it), and `Via`.
    static func request(_ headers: HTTPHeaders, via: String) -> HTTPHeaders {
        var forwarded = CachePolicy.storableHeaders(headers)
        forwarded.remove(name: "host")
        appendVia(via, to: &forwarded)
        return forwarded
    }

    /// The upstream's (or the cache's) headers as sent to the client, with the `Set-Cookie`
    /// values of the exchange this client caused (the cache stores none).
    static func response(_ headers: HTTPHeaders, setCookies: [String] = [], via: String, status: CacheStatus) -> HTTPHeaders {
        var forwarded = CachePolicy.storableHeaders(headers)
        for value in setCookies { forwarded.add(name: "Set-Cookie", value: value) }
        appendVia(via, to: &forwarded)
        forwarded.replaceOrAdd(name: "Cache-Status", value: status.fieldValue)
        return forwarded
    }

    /// Whether this proxy's own `Via` entry is already in a request's: it has come back (a loop).
    static func hasPassed(_ headers: HTTPHeaders, via: String) -> Bool {
        HTTPList.members(headers["via"]).contains { $0 == via }
    }

    private static func appendVia(_ via: String, to headers: inout HTTPHeaders) {
        let earlier = HTTPList.members(headers["via"]).joined(separator: ", ")
        headers.replaceOrAdd(name: "Via", value: earlier.isEmpty ? via : "\(earlier), \(via)")
    }
}
