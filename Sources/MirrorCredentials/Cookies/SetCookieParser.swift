import MirrorCore

/// The parsing algorithm of RFC 6265bis §5.6 for `Set-Cookie` values: lenient where browsers
/// are (unknown attributes, bad dates and bad Max-Age are ignored; the last of each attribute
/// wins), strict where they refuse the whole cookie.
public enum SetCookieParser {
    /// The longest name plus value, and the longest attribute value, that are kept.
    public static let nameValueLimit = 4096, attributeValueLimit = 1024
    /// The furthest ahead an expiry may be (§5.6.1): 400 days.
    public static let longestLifetime: Double = 400 * 86_400

    /// Parses one `Set-Cookie` value received at `now` (seconds since 1970).
    public static func parse(_ header: String, now: Double) throws(CookieRefusal) -> SetCookie {
        // Control characters other than tab refuse the whole cookie (step 1).
        guard !header.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) else {
            throw CookieRefusal("the Set-Cookie value holds control characters")
        }
        let pieces = header.utf8.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false).map { Substring($0) }
        let pair = pieces[0]
        guard let equals = pair.utf8.firstIndex(of: UInt8(ascii: "=")) else { throw CookieRefusal("the cookie has no name (no \"=\")") }
        let name = String(Substring(pair.utf8[..<equals]).trimmingASCIIWhitespace())
        let value = String(Substring(pair.utf8[pair.utf8.index(after: equals)...]).trimmingASCIIWhitespace())
        guard !name.isEmpty else { throw CookieRefusal("the cookie has no name") }
        guard name.utf8.count + value.utf8.count <= nameValueLimit else {
            throw CookieRefusal("cookie \"\(name)\" is longer than \(nameValueLimit) bytes")
        }
        var cookie = SetCookie(name: name, value: value)
        var expires: Double?
        var maxAge: Double?
        for attribute in pieces.dropFirst() {
            let (key, value) = split(attribute)
            guard value.utf8.count <= attributeValueLimit else { continue }
            switch key.lowercased() {
            case "expires": if let date = CookieDate.parse(value) { expires = date }
            case "max-age": if let seconds = parseMaxAge(value) { maxAge = seconds }
            case "domain":
                let domain = value.lowercased()
                let withoutDot = domain.utf8.first == UInt8(ascii: ".") ? String(Substring(domain.utf8.dropFirst())) : domain
                if !withoutDot.isEmpty { cookie.domain = withoutDot }
            case "path": cookie.path = value.utf8.first == UInt8(ascii: "/") ? String(value) : nil
            case "secure": cookie.secure = true
            case "httponly": cookie.httpOnly = true
            case "samesite": cookie.sameSite = String(value)
            default: break
            }
        }
        // Max-Age 0 or less expires the cookie at once: its expiry is the earliest time there is.
        if let maxAge { cookie.expires = maxAge <= 0 ? -.infinity : now + maxAge } else { cookie.expires = expires }
        if let expiry = cookie.expires { cookie.expires = min(expiry, now + longestLifetime) }
        return cookie
    }

    /// An attribute's name and value, without surrounding spaces; the value is empty without `=`.
    /// Cut by bytes: a mark after `=` makes one `Character` with it, and a `Character` index
    /// after the `=` passed over the mark.
    private static func split(_ attribute: Substring) -> (key: Substring, value: Substring) {
        let bytes = attribute.utf8
        guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else { return (attribute.trimmingASCIIWhitespace(), "") }
        return (
            Substring(bytes[..<equals]).trimmingASCIIWhitespace(), Substring(bytes[bytes.index(after: equals)...]).trimmingASCIIWhitespace()
        )
    }

    /// Max-Age's delta-seconds: an optional `-` and digits; nil for anything else.
    private static func parseMaxAge(_ text: Substring) -> Double? {
        let negative = text.utf8.first == UInt8(ascii: "-")
        let digits = negative ? Substring(text.utf8.dropFirst()) : text
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        // Any number of digits: past 400 days the value is capped anyway.
        let seconds = digits.utf8.count > 12 ? longestLifetime : Double(Int(digits)!)
        return negative ? -seconds : seconds
    }
}
