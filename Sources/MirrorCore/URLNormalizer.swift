/// RFC 3986 §6.2.2 normalization of absolute http(s) URLs, so one resource has one key:
/// scheme and host lower-cased, default port dropped, empty path made `/`, dot segments
/// removed, percent-encoding hex upper-cased, unreserved characters decoded, characters
/// that must be escaped (spaces, non-ASCII, …) percent-encoded as UTF-8, fragment dropped.
/// The result is ASCII but for an internationalized host, kept in Unicode (not made `xn--`).
public enum URLNormalizer {
    /// The normalized form of `string`, or nil when it is not an absolute http(s) URL.
    public static func normalize(_ string: String) -> String? {
        guard let parts = URLParts(string) else { return nil }
        return parts.normalized
    }
}

/// An absolute http(s) URL split into its components, as written.
public struct URLParts: Sendable, Equatable {
    public var scheme: String
    public var userinfo: String?
    public var host: String
    public var port: Int?
    public var path: String
    public var query: String?
    public var fragment: String?

    public init?(_ string: String) {
        // Delimiters are found and stepped over on UTF-8 bytes: a combining mark after `#`, `/`
        // or `:` must neither hide the delimiter inside one Character nor go with it.
        var rest = string.trimmingSpaces().utf8
        if let hash = rest.firstIndex(of: UInt8(ascii: "#")) {
            fragment = Self.text(rest[rest.index(after: hash)...])
            rest = rest[..<hash]
        }
        guard let colon = rest.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        scheme = Self.text(rest[..<colon]).lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        rest = rest[rest.index(after: colon)...]
        guard rest.starts(with: "//".utf8) else { return nil }
        rest = rest.dropFirst(2)
        let authorityEnd =
            rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "\\") } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        rest = rest[authorityEnd...]
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) {
            userinfo = Self.text(authority[..<at])
            authority = authority[authority.index(after: at)...]
        }
        // host, host:port, [v6], [v6]:port; a host name holds no `:` (`a:80:` is no port 80 of `a:80`)
        var hostPart = authority
        if authority.first == UInt8(ascii: "["), let close = authority.firstIndex(of: UInt8(ascii: "]")) {
            hostPart = authority[...close]
            let after = authority[authority.index(after: close)...]
            if after.first == UInt8(ascii: ":") { port = Self.port(after.dropFirst()) ?? -1 }
        } else if let portColon = authority.firstIndex(of: UInt8(ascii: ":")) {
            hostPart = authority[..<portColon]
            port = Self.port(authority[authority.index(after: portColon)...]) ?? -1
        }
        // No host holds a space or a control: kept, they would make a URL that reads back otherwise
        // once the spaces and controls around or inside a reference are dropped (`resolve`).
        guard port != -1, !hostPart.isEmpty, !hostPart.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else { return nil }
        host = Self.text(hostPart).lowercased()
        if let question = rest.firstIndex(of: UInt8(ascii: "?")) {
            query = Self.text(rest[rest.index(after: question)...])
            rest = rest[..<question]
        }
        path = Self.text(rest).replacingBackslashes()
    }

    /// The text of a run of the URL's bytes.
    private static func text(_ bytes: Substring.UTF8View) -> String {
        String(Substring(bytes))
    }

    private static func port(_ text: Substring.UTF8View) -> Int?? {
        if text.isEmpty { return .some(nil) }
        guard text.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let value = Int(Self.text(text)), value <= 65535
        else {
            return nil
        }
        return .some(value)
    }

    /// The default port of the scheme.
    public var defaultPort: Int { scheme == "https" ? 443 : 80 }

    /// The port in use, explicit or default.
    public var effectivePort: Int { port ?? defaultPort }

    /// `host` or `host:port` when the port is not the default.
    public var authority: String {
        (port == nil || port == defaultPort) ? host : "\(host):\(port!)"
    }

    /// `scheme://authority`
    public var origin: String { "\(scheme)://\(authority)" }

    /// The normalized URL, without fragment. (Appended into one string: it is made for every link of every page.)
    public var normalized: String {
        let path = Self.removeDotSegments(PercentEncoding.normalize(path.isEmpty ? "/" : path, allowing: .path))
        let query = query.map { PercentEncoding.normalize($0, allowing: .query) }
        let port = port == nil || port == defaultPort ? nil : String(port!)
        var result = ""
        result.reserveCapacity(
            scheme.utf8.count + 3 + host.utf8.count + (port.map { $0.utf8.count + 1 } ?? 0)
                + path.utf8.count + (query.map { $0.utf8.count + 1 } ?? 0))
        result += scheme
        result += "://"
        result += host
        if let port { result += ":" + port }
        result += path
        if let query { result += "?" + query }
        return result
    }

    /// RFC 3986 §5.2.4, on bytes, in one pass; the path itself when it has no `.` or `..`
    /// segment (most have none: a file's `.` is no segment), found on its bytes in place.
    public static func removeDotSegments(_ path: String) -> String {
        var path = path
        guard path.withUTF8({ $0.first == UInt8(ascii: "/") && hasDotSegment($0) }) else { return path }
        let bytes = Array(path.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        /// Where each segment in `output` starts (at its `/`).
        var starts: [Int] = []
        var start = 0
        while start < bytes.count {
            let end = bytes[(start + 1)...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.count
            let isLast = end == bytes.count
            switch dotSegment(bytes, start + 1..<end) {
            case 1:
                break
            case 2:
                if let last = starts.popLast() { output.removeSubrange(last...) }
            default:
                starts.append(output.count)
                output += bytes[start..<end]
                start = end
                continue
            }
            if isLast { output.append(UInt8(ascii: "/")) }
            start = end
        }
        if output.isEmpty { output.append(UInt8(ascii: "/")) }
        return String(decoding: output, as: UTF8.self)
    }

    /// Whether a segment of `bytes` (a path starting with `/`) is `.` or `..`.
    private static func hasDotSegment(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "/") {
                let end = bytes[(index + 1)...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.count
                if dotSegment(bytes, index + 1..<end) > 0 { return true }
                index = end
            } else {
                index += 1
            }
        }
        return false
    }

    /// 1 when the segment at `range` is `.`, 2 when it is `..`, else 0.
    private static func dotSegment<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, _ range: Range<Int>) -> Int
    where Bytes.Index == Int {
        guard range.count == 1 || range.count == 2, bytes[range].allSatisfy({ $0 == UInt8(ascii: ".") }) else { return 0 }
        return range.count
    }
}

extension String {
    /// Without leading and trailing ASCII whitespace and controls (as browsers strip URLs).
    func trimmingSpaces() -> Substring {
        let bytes = utf8
        guard let first = bytes.firstIndex(where: { $0 > 0x20 }) else { return "" }
        let last = bytes.lastIndex(where: { $0 > 0x20 })!
        // Of the bytes: a prepended mark makes one `Character` with a space after it.
        return Substring(bytes[first...last])
    }

    /// Browsers read `\` as `/` in http(s) paths. (Byte checks: Foundation's `contains(_:)`
    /// on strings is far slower, and this runs for every link of every page; and a `\` with a
    /// combining mark after it is one `Character`, equal to no `\`.)
    func replacingBackslashes() -> String {
        guard utf8.contains(UInt8(ascii: "\\")) else { return self }
        return String(decoding: utf8.map { $0 == UInt8(ascii: "\\") ? UInt8(ascii: "/") : $0 }, as: UTF8.self)
    }
}
