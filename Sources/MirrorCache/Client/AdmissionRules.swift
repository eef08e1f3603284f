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

    public init(hosts: [HostPattern] = [], urlPatterns: [URLPattern] = [], userAgents: [String] = []) {
        self.hosts = hosts
        self.urlPatterns = urlPatterns
        self.userAgents = userAgents
    }

    /// Whether this request may be answered from, and stored in, the cache.
    public func admits(url: URLParts, method: HTTPMethod, headers: HTTPHeaders) -> Bool {
        guard method == .GET || method == .HEAD else { return false }
        if !hosts.isEmpty, !hosts.contains(where: { $0.matches(host: url.host, port: url.effectivePort) }) { return false }
        if !urlPatterns.isEmpty {
            let text = url.normalized
            guard urlPatterns.contains(where: { $0.matches(text) }) else { return false }
        }
        if !userAgents.isEmpty {
            let agent = headers.first(name: "user-agent") ?? ""
            guard userAgents.contains(where: { agent.contains($0) }) else { return false }
        }
        return true
    }
}
