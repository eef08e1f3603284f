public import MirrorCore
public import NIOHTTP1

/// Which requests the cache takes part in (from the iOS designs: cache only whitelisted hosts,
/// URLs and user agents). Only GET and HEAD are ever cached; requests outside the rules
/// go straight to the network and are not stored.
public struct AdmissionRules: Sendable {
    /// Hosts whose responses may be cached; empty means every host.
    public var hosts: [HostPattern] = []
    /// Regular expressions of which one must match the URL; empty means every URL.
    public var urlPatterns: [URLPattern] = []
    /// Substrings of which one must appear in the User-Agent; empty means every agent.
    public var userAgents: [String] = []
    /// Endings of which one must end the User-Agent (the iOS cache marked its web view's
    /// requests this way); empty means every agent.
    public var userAgentSuffixes: [String] = []
    /// Query parameters left out of the cache key (cache busters such as `_` or `utm_*`);
    /// `*` matches any run of characters. The request still goes out with them.
    public var ignoredParameters: [String] = []

    public init(
        hosts: [HostPattern] = [], urlPatterns: [URLPattern] = [], userAgents: [String] = [],
        userAgentSuffixes: [String] = [], ignoredParameters: [String] = []
    ) {
        self.hosts = hosts
        self.urlPatterns = urlPatterns
        self.userAgents = userAgents
        self.userAgentSuffixes = userAgentSuffixes
        self.ignoredParameters = ignoredParameters
    }

    /// Whether this request may be answered from, and stored in, the cache.
    public func admits(url: URLParts, method: HTTPMethod, headers: HTTPHeaders) -> Bool {
        guard method == .GET || method == .HEAD else { return false }
        if !hosts.isEmpty, !hosts.contains(where: { $0.matches(host: url.host, port: url.effectivePort) }) { return false }
        if !urlPatterns.isEmpty {
            let text = url.normalized
            guard urlPatterns.contains(where: { $0.matches(text) }) else { return false }
        }
        let agent = headers.first(name: "user-agent") ?? ""
        if !userAgents.isEmpty, !userAgents.contains(where: { agent.contains($0) }) { return false }
        if !userAgentSuffixes.isEmpty, !userAgentSuffixes.contains(where: { agent.hasSuffix($0) }) { return false }
        return true
    }

    /// The URL the cache files a response under: the normalized URL without the ignored parameters.
    public func cacheKey(_ url: URLParts) -> String {
        guard !ignoredParameters.isEmpty, let query = url.query else { return url.normalized }
        var kept = url
        let parameters = QueryParameters.split(query).filter { parameter in
            let decoded = PercentEncoding.decode(String(QueryParameters.name(of: parameter)))
            return !ignoredParameters.contains { Self.wildcard($0, matches: decoded[...]) }
        }
        kept.query = parameters.isEmpty ? nil : parameters.joined(separator: "&")
        return kept.normalized
    }

    /// `*` in `pattern` matches any run of characters; everything else matches itself.
    static func wildcard(_ pattern: String, matches name: Substring) -> Bool {
        var pieces = pattern.split(separator: "*", omittingEmptySubsequences: false)[...]
        guard let first = pieces.popFirst(), name.hasPrefix(first) else { return false }
        if pieces.isEmpty { return name == first }
        var rest = name.dropFirst(first.count)
        let last = pieces.popLast()!
        for piece in pieces {
            guard let found = rest.firstRange(of: piece) else { return false }
            rest = rest[found.upperBound...]
        }
        return rest.count >= last.count && rest.hasSuffix(last)
    }
}
