import MirrorCache
import MirrorCore
import NIOHTTP1

/// Shared builders for the RFC 9111 policy tests. Times are seconds since the epoch;
/// small numbers (1970 dates) keep the arithmetic readable.
enum PolicyFixture {
    static let privateCache = CachePolicy(isShared: false)
    static let sharedCache = CachePolicy(isShared: true)

    /// An HTTP date for `seconds` since the epoch.
    static func date(_ seconds: Int64) -> String { HTTPDate.format(seconds) }

    static func headers(_ fields: [(String, String)]) -> HTTPHeaders { HTTPHeaders(fields) }

    /// A stored response: by default requested and received at t=1000.
    static func head(
        status: Int = 200, _ fields: [(String, String)] = [], requestTime: Double = 1000,
        responseTime: Double = 1000
    ) -> CachedResponseHead {
        CachedResponseHead(status: status, headers: HTTPHeaders(fields), requestTime: requestTime, responseTime: responseTime)
    }
}
