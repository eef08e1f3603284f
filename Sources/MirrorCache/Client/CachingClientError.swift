/// A request the caching client refuses before any I/O.
///
/// A struct around a private code, not an enum, so that a new kind of refusal is not a breaking
/// change for a caller: compare with the kinds it handles (`error == .invalidURL(url)`).
public struct CachingClientError: Error, CustomStringConvertible, Equatable {
    private enum Code: Equatable {
        case invalidURL
    }

    private let code: Code
    /// The URL of the request refused.
    public let url: String

    /// The request's URL is not an absolute http or https URL.
    public static func invalidURL(_ url: String) -> CachingClientError {
        CachingClientError(code: .invalidURL, url: url)
    }

    public var description: String {
        switch code {
        case .invalidURL: "not an absolute http(s) URL: \(url)"
        }
    }
}
