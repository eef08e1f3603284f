/// Failures of the cache engine, each with a message a person can act on.
public enum CacheError: Error, CustomStringConvertible, Equatable {
    /// The cache folder cannot be created, read or written.
    case io(path: String, message: String)
    /// The index database is damaged; `mirror cache verify --repair` rebuilds it.
    case corruptIndex(path: String, message: String)
    /// A body file is missing or does not match its digest; the entry was dropped.
    case corruptBody(url: String, digest: String)
    /// A response body is larger than the configured limit.
    case bodyTooLarge(url: String, limit: Int)
    /// The cache was written by a newer, incompatible version of mirror.
    case incompatibleVersion(found: Int, supported: Int)

    public var description: String {
        switch self {
        case .io(let path, let message):
            return "cache I/O error at \(path): \(message)"
        case .corruptIndex(let path, let message):
            return "the cache index \(path) is damaged (\(message)); run `mirror cache verify --repair`"
        case .corruptBody(let url, let digest):
            return "the cached body of \(url) (sha256 \(digest.prefix(12))…) is missing or damaged; the entry was dropped"
        case .bodyTooLarge(let url, let limit):
            return "\(url) is larger than the limit of \(limit) bytes"
        case .incompatibleVersion(let found, let supported):
            return "the cache has format version \(found); this mirror reads version \(supported) or older"
        }
    }
}
