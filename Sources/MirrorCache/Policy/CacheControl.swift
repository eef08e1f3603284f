import MirrorCore
public import NIOHTTP1

/// The directives of every `Cache-Control` field line of a message (RFC 9111 §5.2).
///
/// Names are case-insensitive; a directive that appears twice keeps its first value;
/// an invalid delta-seconds value is treated as the most conservative reading
/// (a `max-age` that cannot be parsed makes the response stale, §4.2.1).
public struct CacheControl: Sendable, Equatable {
    /// Directive name (lower-cased) to its value, nil when it has none.
    public private(set) var directives: [String: String?] = [:]

    /// The directives of `field`: `Cache-Control`, or a targeted field such as `CDN-Cache-Control` (RFC 9213).
    public init(_ headers: HTTPHeaders, isRequest: Bool = false, field: String = "cache-control") {
        for line in headers[field] { parse(line) }
        // HTTP/1.0 clients: `Pragma: no-cache` means `Cache-Control: no-cache` (§5.4).
        if isRequest, headers["cache-control"].isEmpty,
            headers["pragma"].contains(where: { $0.lowercased().contains("no-cache") })
        {
            directives["no-cache"] = .some(nil)
        }
    }

    public init(_ value: String) {
        parse(value)
    }

    public func has(_ name: String) -> Bool { directives[name] != nil }

    /// The delta-seconds of `name`: nil when absent; 0 when present but not a valid number.
    public func seconds(_ name: String) -> Int? {
        guard let entry = directives[name] else { return nil }
        guard let text = entry, !text.isEmpty, text.allSatisfy(\.isASCIIDigit) else { return 0 }
        return Int(text) ?? Int(Int32.max)  // §1.2.2: overflow means "a very large value"
    }

    public var noStore: Bool { has("no-store") }
    public var noCache: Bool { has("no-cache") }
    public var isPrivate: Bool { has("private") }
    public var isPublic: Bool { has("public") }
    public var mustRevalidate: Bool { has("must-revalidate") }
    public var proxyRevalidate: Bool { has("proxy-revalidate") }
    public var onlyIfCached: Bool { has("only-if-cached") }
    public var immutable: Bool { has("immutable") }
    public var maxAge: Int? { seconds("max-age") }
    public var sharedMaxAge: Int? { seconds("s-maxage") }
    public var minFresh: Int? { seconds("min-fresh") }
    public var staleIfError: Int? { seconds("stale-if-error") }
    public var staleWhileRevalidate: Int? { seconds("stale-while-revalidate") }

    /// `max-stale`: nil when absent, `Int.max` when present without a value (any staleness).
    public var maxStale: Int? {
        guard let entry = directives["max-stale"] else { return nil }
        guard let text = entry, !text.isEmpty else { return Int.max }
        return seconds("max-stale")
    }

    /// Splits on commas outside quoted strings: `a, b="x, y", c=1`; inside a quoted string
    /// a backslash escapes the next character (quoted-pair, RFC 9110 §5.6.4). By bytes: a mark
    /// after `,` or `=` makes one `Character` with it (`max-age=600\u{600}, private` was one
    /// directive, and `private` went unseen).
    private mutating func parse(_ line: String) {
        let bytes = line.utf8
        var parts: [Substring] = []
        var start = bytes.startIndex
        var quoted = false
        var escaped = false
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if escaped {
                escaped = false
            } else if quoted && byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                quoted.toggle()
            } else if byte == UInt8(ascii: ","), !quoted {
                parts.append(Substring(bytes[start..<index]))
                start = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        parts.append(Substring(bytes[start...]))
        for part in parts {
            let trimmed = part.trimmingASCIIWhitespace()
            guard !trimmed.isEmpty else { continue }
            let name: String
            let value: String?
            if let equals = trimmed.utf8.firstIndex(of: UInt8(ascii: "=")) {
                name = Substring(trimmed.utf8[..<equals]).trimmingASCIIWhitespace().lowercased()
                let raw = Substring(trimmed.utf8[trimmed.utf8.index(after: equals)...]).trimmingASCIIWhitespace()
                if raw.utf8.count >= 2, raw.utf8.first == UInt8(ascii: "\""), raw.utf8.last == UInt8(ascii: "\"") {
                    value = Self.unescaped(Substring(raw.utf8.dropFirst().dropLast()))
                } else {
                    value = String(raw)
                }
            } else {
                name = trimmed.lowercased()
                value = nil
            }
            if directives[name] == nil { directives[name] = .some(value) }
        }
    }

    /// The content of a quoted-string: each quoted-pair `\x` stands for `x`.
    private static func unescaped(_ text: Substring) -> String {
        var result = String.UnicodeScalarView()
        var escaped = false
        for scalar in text.unicodeScalars {
            if !escaped && scalar == "\\" {
                escaped = true
                continue
            }
            escaped = false
            result.append(scalar)
        }
        return String(result)
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
