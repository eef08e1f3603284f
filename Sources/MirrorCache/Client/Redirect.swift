import MirrorCore
public import NIOHTTP1

/// The request a redirect leads to, as browsers, URLSession and async-http-client follow one:
/// a 303 (and a 301 or 302 of a POST) becomes a GET without a body; a 307 or 308 repeats the
/// method and body; credentials go only to the origin they were given for.
public struct Redirect: Sendable, Equatable {
    /// The absolute URL to request next.
    public let url: String
    public let method: HTTPMethod
    /// Whether the body goes again (a 307 or 308, or a method kept otherwise).
    public let keepsBody: Bool
    /// Whether the next request stays on the same origin (scheme, host and port), so that its
    /// `Authorization`, `Cookie` and `Proxy-Authorization` may go with it.
    public let keepsCredentials: Bool

    /// The headers that carry credentials, dropped on a redirect to another origin.
    public static let credentialHeaders = ["authorization", "cookie", "proxy-authorization"]
    /// The headers that describe a body, dropped with it.
    public static let bodyHeaders = ["content-type", "content-length", "transfer-encoding"]

    /// The headers the next request leaves out.
    public var droppedHeaders: [String] { (keepsBody ? [] : Self.bodyHeaders) + (keepsCredentials ? [] : Self.credentialHeaders) }

    /// The redirect of a response, or nil when it is none: not a 301, 302, 303, 307 or 308, no
    /// `Location`, or one that is not http(s).
    public init?(status: Int, location: String?, from url: String, method: HTTPMethod) {
        guard [301, 302, 303, 307, 308].contains(status), let location, let from = URLParts(url),
            let target = from.resolve(location), target.scheme == "http" || target.scheme == "https"
        else { return nil }
        let becomesGet = status == 303 && method != .HEAD || [301, 302].contains(status) && method == .POST
        self.url = target.normalized
        self.method = becomesGet ? .GET : method
        keepsBody = !becomesGet
        keepsCredentials = target.origin == from.origin
    }

    /// `headers` for the next request: without a body's headers when the body is dropped,
    /// without credentials when the origin changes.
    public func headers(from headers: HTTPHeaders) -> HTTPHeaders {
        var next = headers
        for name in droppedHeaders { next.remove(name: name) }
        return next
    }
}
