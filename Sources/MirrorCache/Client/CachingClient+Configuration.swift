public import NIOHTTP1

extension CachingClient {
    /// How a client answers: the cache's mode and policy, what it admits, and its limits.
    public struct Configuration: Sendable {
        public var mode: CacheMode = .standard
        public var policy = CachePolicy()
        public var admission = AdmissionRules()
        /// The largest (decoded) body accepted.
        public var maxBodySize: Int = 1 << 30
        /// The whole exchange with the origin, per request.
        public var timeout: Duration = .seconds(30)
        /// Return a response to be stored as soon as its head arrives, its body following as it is
        /// stored (a proxy: the first bytes reach the client before the last leave the origin);
        /// off, a body is whole when returned (a crawler).
        public var streamsBodies = false
        /// Headers added to every request unless the caller set them.
        public var defaultHeaders: HTTPHeaders = [
            "User-Agent": "mirror/0.1 (+offline snapshots)", "Accept-Encoding": "gzip, deflate",
        ]

        public init() {}
    }
}
