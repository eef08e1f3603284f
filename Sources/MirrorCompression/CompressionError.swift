/// A failure of zlib, or a stream that breaks a limit we set.
public enum CompressionError: Error, Equatable, CustomStringConvertible {
    /// zlib refused to start (out of memory, or a version mismatch).
    case initializationFailed(code: Int32)
    /// The compressed bytes are not valid gzip or zlib data.
    case corruptData(message: String)
    /// The stream ended before its gzip trailer.
    case truncated
    /// Decompressing would produce more than the allowed number of bytes (a "gzip bomb").
    case outputLimitExceeded(limit: Int)

    public var description: String {
        switch self {
        case .initializationFailed(let code):
            return "zlib could not start (code \(code))"
        case .corruptData(let message):
            return "compressed data is corrupt: \(message)"
        case .truncated:
            return "compressed data ends early (truncated stream)"
        case .outputLimitExceeded(let limit):
            return "decompressed data exceeds the limit of \(limit) bytes"
        }
    }
}
