import MirrorCore

/// Bounds the session-id trap without losing the page: URLs that differ only in session-id
/// parameters (`?sid=…`, `;jsessionid=…`) are one page. The first URL of that page is
/// fetched, with or without a session id; every later variant — the endless chain of new ids
/// a session-tracking site hands out — is cut off (and counted by the caller).
struct SessionTraps: Sendable {
    let parameters: Set<String>
    /// Pages (URLs without their session ids) already claimed by a URL with a session id.
    private var claimed: Set<String> = []

    init(parameters: Set<String>) {
        self.parameters = parameters
    }

    /// Claims `page` for a URL with a session id; false when another one claimed it first.
    mutating func claim(_ page: String) -> Bool {
        claimed.insert(page).inserted
    }

    /// `url` without its session-id parameters (normalized), or nil when it has none.
    func page(of url: String) -> String? {
        // Session ids are only in `;` path parameters and the query: most URLs have neither,
        // and splitting every one took a fifth of a resume of 50,000 URLs.
        guard url.utf8.contains(UInt8(ascii: ";")) || url.utf8.contains(UInt8(ascii: "?")), var parts = URLParts(url) else {
            return nil
        }
        var found = false
        parts.path = parts.path.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            let pieces = segment.split(separator: ";", omittingEmptySubsequences: false)
            let kept = pieces.prefix(1) + pieces.dropFirst().filter { !isSession($0) }
            if kept.count != pieces.count { found = true }
            return kept.joined(separator: ";")
        }.joined(separator: "/")
        if let query = parts.query {
            let pairs = QueryParameters.split(query)
            let kept = pairs.filter { !isSession($0) }
            if kept.count != pairs.count { found = true }
            parts.query = kept.isEmpty ? nil : kept.joined(separator: "&")
        }
        return found ? parts.normalized : nil
    }

    private func isSession(_ parameter: Substring) -> Bool {
        parameters.contains(QueryParameters.name(of: parameter).lowercased())
    }
}
