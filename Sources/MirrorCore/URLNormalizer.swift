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
        var string = string
        guard let parts = string.withUTF8(Self.parse) else { return nil }
        self = parts
    }

    private init(scheme: String, userinfo: String?, host: String, port: Int?, path: String, query: String?, fragment: String?) {
        self.scheme = scheme
        self.userinfo = userinfo
        self.host = host
        self.port = port
        self.path = path
        self.query = query
        self.fragment = fragment
    }

    /// The parts of the absolute http(s) URL in `bytes`, found in one pass over them. Delimiters
    /// are found and stepped over on bytes: a combining mark after `#`, `/` or `:` must neither
    /// hide the delimiter inside one Character nor go with it.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> URLParts? {
        var (start, end) = trimmed(bytes)
        var fragment: String?
        if let hash = bytes.firstIndex(of: UInt8(ascii: "#"), in: start..<end) {
            fragment = text(bytes, hash + 1..<end)
            end = hash
        }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":"), in: start..<end),
            let scheme = httpScheme(bytes, start..<colon),
            colon + 3 <= end, bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/")
        else { return nil }
        start = colon + 3
        var authorityEnd = end
        for index in start..<end {
            let byte = bytes[index]
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "\\") {
                authorityEnd = index
                break
            }
        }
        var userinfo: String?
        if let at = bytes.lastIndex(of: UInt8(ascii: "@"), in: start..<authorityEnd) {
            userinfo = text(bytes, start..<at)
            start = at + 1
        }
        // host, host:port, [v6], [v6]:port; a host name holds no `:` (`a:80:` is no port 80 of `a:80`)
        var hostEnd = authorityEnd
        var port: Int?
        if start < authorityEnd, bytes[start] == UInt8(ascii: "["),
            let close = bytes.firstIndex(of: UInt8(ascii: "]"), in: start..<authorityEnd)
        {
            hostEnd = close + 1
            if hostEnd < authorityEnd, bytes[hostEnd] == UInt8(ascii: ":") {
                guard let value = Self.port(bytes, hostEnd + 1..<authorityEnd) else { return nil }
                port = value
            }
        } else if let portColon = bytes.firstIndex(of: UInt8(ascii: ":"), in: start..<authorityEnd) {
            hostEnd = portColon
            guard let value = Self.port(bytes, portColon + 1..<authorityEnd) else { return nil }
            port = value
        }
        // No host holds a space or a control: kept, they would make a URL that reads back otherwise
        // once the spaces and controls around or inside a reference are dropped (`resolve`).
        guard start < hostEnd, !bytes[start..<hostEnd].contains(where: { $0 <= 0x20 || $0 == 0x7F }) else { return nil }
        let host = lowercasedText(bytes, start..<hostEnd)
        var pathEnd = end
        var query: String?
        if let question = bytes.firstIndex(of: UInt8(ascii: "?"), in: authorityEnd..<end) {
            query = text(bytes, question + 1..<end)
            pathEnd = question
        }
        return URLParts(
            scheme: scheme, userinfo: userinfo, host: host, port: port, path: pathText(bytes, authorityEnd..<pathEnd), query: query,
            fragment: fragment)
    }

    /// The bounds of `bytes` without leading and trailing ASCII whitespace and controls (as
    /// browsers strip URLs).
    static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> (start: Int, end: Int) {
        var (start, end) = (0, bytes.count)
        while start < end, bytes[start] <= 0x20 { start += 1 }
        while end > start, bytes[end - 1] <= 0x20 { end -= 1 }
        return (start, end)
    }

    /// `http` or `https` when `range` of `bytes` spells one in any case.
    static func httpScheme(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String? {
        guard range.count == 4 || range.count == 5 else { return nil }
        for (offset, letter) in "https".utf8.prefix(range.count).enumerated() where bytes[range.lowerBound + offset] | 0x20 != letter {
            return nil
        }
        return range.count == 4 ? "http" : "https"
    }

    /// The text of a run of the URL's bytes (cut at ASCII delimiters, so whole characters).
    static func text(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// A host's text lower-cased: ASCII on its bytes, anything else as Unicode lower-cases it.
    private static func lowercasedText(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        let run = UnsafeBufferPointer(rebasing: bytes[range])
        guard run.allSatisfy({ $0 < 0x80 }) else { return text(bytes, range).lowercased() }
        return String(unsafeUninitializedCapacity: run.count) { output in
            for (index, byte) in run.enumerated() {
                output[index] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            }
            return run.count
        }
    }

    /// A path's text, each `\` read as `/` (`replacingBackslashes`, for the rare path that has one).
    static func pathText(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        let written = text(bytes, range)
        return UnsafeBufferPointer(rebasing: bytes[range]).contains(UInt8(ascii: "\\")) ? written.replacingBackslashes() : written
    }

    /// The port in `range`: `.some(nil)` when empty, nil when not a number of at most 65535.
    private static func port(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int?? {
        var value = 0
        for index in range {
            let byte = bytes[index]
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            if value > 65535 { return nil }
        }
        return range.isEmpty ? .some(nil) : .some(value)
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

extension UnsafeBufferPointer<UInt8> {
    /// The first position of `byte` in `range`.
    func firstIndex(of byte: UInt8, in range: Range<Int>) -> Int? {
        for index in range where self[index] == byte { return index }
        return nil
    }

    /// The last position of `byte` in `range`.
    func lastIndex(of byte: UInt8, in range: Range<Int>) -> Int? {
        for index in range.reversed() where self[index] == byte { return index }
        return nil
    }
}
