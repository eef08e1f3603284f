public import MirrorCache
public import MirrorHTTPServer

/// What `mirror proxy` does with the requests it receives.
public struct ProxyConfiguration: Sendable {
    public var mode: RecordingMode = .record
    /// The origin of a reverse proxy (`--upstream`), without a trailing slash; nil for a forward proxy.
    public var upstream: String?
    /// The status of a replay miss (`--on-miss`): 504 or 404.
    public var missStatus = 504
    /// The cache's settings; the proxy makes its policy shared, and replay makes its mode offline.
    public var cache = CachingClient.Configuration()
    /// Decrypt CONNECT tunnels with certificates from this authority and answer what is inside
    /// through the cache (`--mitm`); nil tunnels them unread.
    public var interception: InterceptionAuthority?
    /// This proxy's entry in `Via` (RFC 9110 §7.6.3), in requests and responses. Its pseudonym is
    /// new for each proxy, so that a request that comes back to the same proxy (a loop through
    /// its own address, or through other proxies) is recognised.
    public var via = "1.1 mirror-" + String(UInt32.random(in: .min ... .max), radix: 16)

    public init(mode: RecordingMode = .record, upstream: String? = nil) {
        self.mode = mode
        self.upstream = upstream.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
    }

    /// Whether the server should take CONNECT: a forward proxy does, except in replay (no
    /// network) unless it intercepts, answering from the cache.
    var tunnelsConnect: Bool { upstream == nil && (mode != .replay || interception != nil) }

    /// The server's settings for CONNECT.
    public func configureTunnels(_ server: inout ServerConfiguration) {
        server.tunnelsConnect = tunnelsConnect
        server.tunnelInterceptor = interception
    }

    /// The caching client's configuration for this proxy.
    var clientConfiguration: CachingClient.Configuration {
        var configuration = cache
        configuration.policy.isShared = true
        if upstream != nil { configuration.policy.targetedField = "cdn-cache-control" }
        if mode == .replay { configuration.mode = .offline }
        configuration.streamsBodies = true
        // A proxy forwards the client's User-Agent and adds none; compressed transfer saves the
        // origin's bandwidth and the client still gets a decoded body.
        configuration.defaultHeaders = ["Accept-Encoding": "gzip, deflate"]
        return configuration
    }
}
