import MirrorCore

/// A failure of the cache engine, with a message a person can act on.
///
/// A struct around a `Code`, not an enum, so that a new kind of failure is not a breaking change
/// for a caller that switches over them: compare `code` with the kinds it handles.
public struct CacheError: Error, CustomStringConvertible, Equatable {
    /// The kinds of failure. More may be added.
    public struct Code: Hashable, Sendable {
        private let value: Int
        /// The cache folder cannot be created, read or written.
        public static let io = Code(value: 1)
        /// The index database is damaged; `mirror cache verify --repair` rebuilds it.
        public static let corruptIndex = Code(value: 2)
        /// A body file is missing or does not match its digest; the entry was dropped.
        public static let corruptBody = Code(value: 3)
        /// A response body is larger than the configured limit.
        public static let bodyTooLarge = Code(value: 4)
        /// The cache was written by a newer, incompatible version of mirror.
        public static let incompatibleVersion = Code(value: 5)
    }

    public let code: Code
    /// The file or folder the failure is about, or the URL whose body it is.
    public let subject: String
    /// What the system or SQLite said, for `io` and `corruptIndex`.
    public let detail: String
    public let description: String

    public static func io(path: String, message: String) -> CacheError {
        CacheError(code: .io, subject: path, detail: message, description: "cache I/O error at \(path): \(message)")
    }

    /// A failed system call on a file or folder of the cache, as `io`.
    static func io(_ error: FileSystemError) -> CacheError {
        .io(path: error.path, message: error.message)
    }

    public static func corruptIndex(path: String, message: String) -> CacheError {
        CacheError(
            code: .corruptIndex, subject: path, detail: message,
            description: "the cache index \(path) is damaged (\(message)); run `mirror cache verify --repair`")
    }

    public static func corruptBody(url: String, digest: String) -> CacheError {
        CacheError(
            code: .corruptBody, subject: url, detail: "",
            description: "the cached body of \(url) (sha256 \(digest.prefix(12))…) is missing or damaged; the entry was dropped")
    }

    public static func bodyTooLarge(url: String, limit: Int) -> CacheError {
        CacheError(code: .bodyTooLarge, subject: url, detail: "", description: "\(url) is larger than the limit of \(limit) bytes")
    }

    public static func incompatibleVersion(found: Int, supported: Int) -> CacheError {
        CacheError(
            code: .incompatibleVersion, subject: "", detail: "",
            description: "the cache has format version \(found); this mirror reads version \(supported) or older")
    }
}
