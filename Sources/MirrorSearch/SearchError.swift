/// Why a search could not be made, in words a person can act on.
public enum SearchError: Error, CustomStringConvertible, Sendable {
    /// The query cannot be read (the CLI's usage error).
    case badQuery(String)
    /// The folder is not a mirror (no manifest), or its index cannot be read or written.
    case unusable(String)

    public var description: String {
        switch self {
        case .badQuery(let message): "not a search query: \(message)"
        case .unusable(let message): message
        }
    }
}
