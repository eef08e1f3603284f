import MirrorCache

/// The `Cache-Status` field (RFC 9211) that tells a client how the proxy answered.
struct CacheStatus {
    /// The parameters after the cache's name, such as `hit` or `fwd=uri-miss; stored`.
    let parameters: String

    static let cacheName = "mirror"

    var fieldValue: String { "\(Self.cacheName); \(parameters)" }

    init(parameters: String) {
        self.parameters = parameters
    }

    init(_ response: CacheResponse, method: String) {
        var parameters: String
        switch response.outcome {
        case .hit: parameters = "hit"
        case .staleHit: parameters = "hit; detail=stale"
        case .staleOnError: parameters = "hit; detail=stale-if-error"
        case .revalidated: parameters = "fwd=stale; fwd-status=304"
        case .miss:
            parameters =
                "fwd=\(response.replacedStale ? "stale" : "uri-miss"); fwd-status=\(response.status)"
                + (response.isStored ? "; stored" : "")
        case .bypass:
            parameters = (method == "GET" || method == "HEAD" ? "fwd=bypass" : "fwd=method") + "; fwd-status=\(response.status)"
        case .offlineMiss: parameters = "detail=not-stored"
        default:
            // An application's own outcome (a shared crawl's `shared`): a response it brought
            // into this cache from elsewhere.
            parameters = "hit; detail=\(response.outcome.rawValue)"
        }
        if response.collapsed && parameters.hasPrefix("fwd=") { parameters += "; collapsed" }
        self.parameters = parameters
    }

    static let passthrough = CacheStatus(parameters: "fwd=bypass; detail=passthrough")
    static let replayMiss = CacheStatus(parameters: "detail=replay-miss")
}
