/// A `Set-Cookie` header field's value, parsed (RFC 6265bis §5.6): what the server asked for,
/// before the jar checks it against the request's URL (§5.7). Its description leaves the value
/// out, as `Cookie`'s does.
public struct SetCookie: Sendable, Equatable, CustomStringConvertible {
    public var name: String
    public var value: String
    /// When it expires, from Max-Age (which wins) or Expires, at most 400 days ahead; nil when
    /// neither was given (a session cookie).
    public var expires: Double?
    /// The Domain attribute, lower-cased and without its leading dot; nil when absent or empty.
    public var domain: String?
    /// The Path attribute; nil when absent or not starting with `/` (the default path applies).
    public var path: String?
    public var secure = false
    public var httpOnly = false
    /// The SameSite attribute as written; nil when absent.
    public var sameSite: String?

    public init(
        name: String, value: String, expires: Double? = nil, domain: String? = nil, path: String? = nil,
        secure: Bool = false, httpOnly: Bool = false, sameSite: String? = nil
    ) {
        self.name = name
        self.value = value
        self.expires = expires
        self.domain = domain
        self.path = path
        self.secure = secure
        self.httpOnly = httpOnly
        self.sameSite = sameSite
    }

    public var description: String {
        "Set-Cookie \(name)" + (domain.map { " for Domain=\($0)" } ?? "")
    }
}
