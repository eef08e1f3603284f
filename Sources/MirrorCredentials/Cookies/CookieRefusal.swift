/// Why a cookie was not stored: a short sentence for the crawl's log. It never holds the
/// cookie's value, which is a secret.
public struct CookieRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { reason }
}
