public import MirrorCore

/// The origins a crawl's credentials may go to: the seeds' own (scheme, host and port) and the
/// hosts the user allowed by name (`--allow-host`). Page requisites on other hosts (CDNs, fonts,
/// analytics) and redirect targets elsewhere get none, as curl and wget2 drop credentials when a
/// request leaves the host they were given for; nor does a credential given for `https` go over
/// plain `http` to an allowed host.
public struct CredentialScope: Sendable {
    private let origins: Set<String>
    private let hosts: [HostPattern]
    /// Whether an allowed host may get credentials over plain http: only when a seed is http too.
    private let allowsPlainHTTP: Bool

    public init(seeds: [URLParts], allowedHosts: [HostPattern]) {
        origins = Set(seeds.map(\.origin))
        hosts = allowedHosts
        allowsPlainHTTP = seeds.isEmpty || seeds.contains { $0.scheme == "http" }
    }

    /// Whether a request to `url` may carry the crawl's credentials.
    public func admits(_ url: URLParts) -> Bool {
        if origins.contains(url.origin) { return true }
        guard url.scheme == "https" || allowsPlainHTTP else { return false }
        return hosts.contains { $0.matches(host: url.host, port: url.effectivePort) }
    }
}
