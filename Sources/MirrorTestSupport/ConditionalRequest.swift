import Foundation
import MirrorCore
import NIOHTTP1

/// RFC 9110 §13 evaluation of If-None-Match and If-Modified-Since, as an origin server does it.
enum ConditionalRequest {
    /// True when the request's preconditions say the client's copy is current (answer 304).
    static func isNotModified(request: HTTPHeaders, response: HTTPHeaders) -> Bool {
        let ifNoneMatch = request[canonicalForm: "if-none-match"].map(String.init)
        if !ifNoneMatch.isEmpty {
            guard let etag = response.first(name: "etag") else { return false }
            // Weak comparison (§8.8.3.2): W/ prefixes are ignored.
            let current = weak(etag)
            return ifNoneMatch.contains { $0 == "*" || weak($0) == current }
        }
        guard let since = request.first(name: "if-modified-since").flatMap(HTTPDate.parse),
            let modified = response.first(name: "last-modified").flatMap(HTTPDate.parse)
        else { return false }
        return modified <= since
    }

    /// The headers a 304 carries (§15.4.5): the ones a cache would need to update its copy.
    static func notModifiedHeaders(from response: HTTPHeaders) -> HTTPHeaders {
        let kept: Set<String> = ["etag", "last-modified", "cache-control", "expires", "vary", "date", "content-location"]
        var headers = HTTPHeaders()
        for (name, value) in response where kept.contains(name.lowercased()) {
            headers.add(name: name, value: value)
        }
        return headers
    }

    private static func weak(_ tag: String) -> String {
        let trimmed = tag.trimmingCharacters(in: .whitespaces)
        return trimmed.hasPrefix("W/") ? String(trimmed.dropFirst(2)) : trimmed
    }
}
