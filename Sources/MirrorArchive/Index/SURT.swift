import MirrorCore

/// Sort-friendly URI Reordering Transform keys, as CDXJ indexes use them: the key
/// `org,example)/path?a=1&b=2` for `https://www.Example.org/Path?b=2&a=1`.
///
/// A port of what `cdxj-indexer` (pywb, py-wacz) computes with the `surt` package's default
/// canonicalizer (Google's then the Internet Archive's rules), so that our index and theirs have
/// the same keys: escapes decoded repeatedly then minimally re-encoded, dot segments and empty
/// segments removed, host lower-cased without `www.`/`wwwN.`, default port dropped, path and
/// query lower-cased, session ids dropped, query fields sorted, trailing slash dropped, no
/// fragment, no scheme, host labels reversed. Host names are taken as given: no IDNA conversion
/// and no reading of numeric IPv4 forms other than dotted quads (normalized URLs have neither).
public enum SURT {
    /// The SURT key of `url`.
    public static func key(_ url: String) -> String {
        var bytes = Array(url.utf8)
        bytes.removeAll { $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        let parts = Split(trimming(bytes))
        var host = canonicalHost(parts.host)
        if host.starts(with: Array("www".utf8)) {
            let digits = host.dropFirst(3).prefix { (0x30...0x39).contains($0) }
            if host.dropFirst(3 + digits.count).first == UInt8(ascii: ".") { host.removeFirst(4 + digits.count) }
        }
        var key = host.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).reversed()
            .joined(separator: [UInt8(ascii: ",")]).map { $0 }
        let defaultPort = parts.scheme == "https" ? 443 : parts.scheme == "http" ? 80 : 0
        if let port = parts.port, port != defaultPort { key += Array(":\(port)".utf8) }
        key.append(UInt8(ascii: ")"))
        var path = lowercased(escapeOnce(normalizePath(unescapeRepeatedly(parts.path))))
        path = SURTSessionIDs.strip(path: path)
        if path.count > 1 && path.last == UInt8(ascii: "/") { path.removeLast() }
        key += path
        if let query = parts.query {
            let canonical = reorder(lowercased(SURTSessionIDs.strip(query: escapeOnce(unescapeRepeatedly(query)))))
            if !canonical.isEmpty { key += [UInt8(ascii: "?")] + canonical }
        }
        return String(decoding: key, as: UTF8.self)
    }

    /// A URL split as `surt`'s `handyurl` splits it.
    private struct Split {
        var scheme = ""
        var host: [UInt8] = []
        var port: Int?
        var path: [UInt8] = []
        var query: [UInt8]?

        init(_ url: [UInt8]) {
            var rest = url[...]
            if let colon = rest.firstIndex(of: UInt8(ascii: ":")), let first = rest.first, isAlphanumeric(first) && first > 0x39,
                rest[..<colon].allSatisfy({ isAlphanumeric($0) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E })
            {
                scheme = String(decoding: rest[..<colon], as: UTF8.self).lowercased()
                rest = rest[(colon + 1)...]
            }
            if let hash = rest.firstIndex(of: UInt8(ascii: "#")) { rest = rest[..<hash] }
            if let question = rest.firstIndex(of: UInt8(ascii: "?")) {
                let value = rest[(question + 1)...]
                query = value.isEmpty ? nil : Array(value)
                rest = rest[..<question]
            }
            var authority: ArraySlice<UInt8> = []
            if rest.starts(with: [0x2F, 0x2F]) {
                rest = rest.dropFirst(2)
                let end = rest.firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex
                authority = rest[..<end]
                rest = rest[end...]
            }
            path = Array(rest)
            if let at = authority.lastIndex(of: UInt8(ascii: "@")) { authority = authority[(at + 1)...] }
            while authority.last == UInt8(ascii: ":") { authority.removeLast() }
            if authority.first == UInt8(ascii: "["), let close = authority.firstIndex(of: UInt8(ascii: "]")) {
                host = Array(authority[(authority.startIndex + 1)..<close])
                authority = authority[(close + 1)...]
            } else {
                let colon = authority.lastIndex(of: UInt8(ascii: ":")) ?? authority.endIndex
                host = Array(authority[..<colon])
                authority = authority[colon...]
            }
            if authority.first == UInt8(ascii: ":") { port = Int(String(decoding: authority.dropFirst(), as: UTF8.self)) }
            host = lowercased(host)
        }
    }

    private static func canonicalHost(_ host: [UInt8]) -> [UInt8] {
        let unescaped = unescapeRepeatedly(host)
        // `..` becomes `.` in one pass from the left, as Python's `replace` does.
        var result: [UInt8] = []
        var index = 0
        while index < unescaped.count {
            result.append(unescaped[index])
            index += unescaped[index] == 0x2E && index + 1 < unescaped.count && unescaped[index + 1] == 0x2E ? 2 : 1
        }
        while result.first == 0x2E { result.removeFirst() }
        while result.last == 0x2E { result.removeLast() }
        if !result.isEmpty, result.allSatisfy({ (0x30...0x39).contains($0) }), let number = UInt64(String(decoding: result, as: UTF8.self))
        {
            let address = UInt32(truncatingIfNeeded: number)
            return Array(
                [address >> 24, address >> 16 & 255, address >> 8 & 255, address & 255].map(String.init).joined(separator: ".").utf8)
        }
        return lowercased(escapeOnce(lowercased(result)))
    }

    /// Dot segments resolved and empty segments dropped (the last one kept), as `surt` does.
    private static func normalizePath(_ path: [UInt8]) -> [UInt8] {
        guard !path.isEmpty else { return [UInt8(ascii: "/")] }
        var kept: [ArraySlice<UInt8>] = []
        for segment in path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst() {
            if segment.elementsEqual([0x2E]) { continue }
            if segment.elementsEqual([0x2E, 0x2E]) {
                if kept.isEmpty { kept.append(segment) } else { kept.removeLast() }
                continue
            }
            kept.append(segment)
        }
        var result: [UInt8] = [UInt8(ascii: "/")]
        for segment in kept.dropLast() where !segment.isEmpty { result += segment + [UInt8(ascii: "/")] }
        if let last = kept.last { result += last }
        return result
    }

    /// Query fields sorted as Python sorts `(name, value)` tuples (a field without `=` first).
    private static func reorder(_ query: [UInt8]) -> [UInt8] {
        guard query.count > 1 else { return query }
        let fields = query.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false).map { field in
            let equals = field.firstIndex(of: UInt8(ascii: "="))
            return (name: Array(field[..<(equals ?? field.endIndex)]), value: equals.map { Array(field[($0 + 1)...]) })
        }
        let sorted = fields.sorted { left, right in
            if left.name != right.name { return left.name.lexicographicallyPrecedes(right.name) }
            guard let rightValue = right.value else { return false }
            guard let leftValue = left.value else { return true }
            return leftValue.lexicographicallyPrecedes(rightValue)
        }
        return sorted.map { field in field.value.map { field.name + [UInt8(ascii: "=")] + $0 } ?? field.name }
            .joined(separator: [UInt8(ascii: "&")]).map { $0 }
    }

    /// `%XX` decoded until nothing changes.
    static func unescapeRepeatedly(_ input: [UInt8]) -> [UInt8] {
        var current = input
        while true {
            let decoded = PercentEncoding.decode(bytes: current)
            if decoded == current { return decoded }
            current = decoded
        }
    }

    /// Every byte outside `!`…`~` and `#`, `%` escaped as `%XX` (Python's `quote` with surt's safe set).
    static func escapeOnce(_ input: [UInt8]) -> [UInt8] {
        let digits = Array("0123456789ABCDEF".utf8)
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        for byte in input {
            if byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "#") && byte != UInt8(ascii: "%") {
                output.append(byte)
            } else {
                output += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 15)]]
            }
        }
        return output
    }

    private static func trimming(_ bytes: [UInt8]) -> [UInt8] {
        let blank: (UInt8) -> Bool = { $0 == 0x20 || (0x09...0x0D).contains($0) }
        return Array(bytes.drop(while: blank).reversed().drop(while: blank).reversed())
    }

    private static func lowercased(_ bytes: [UInt8]) -> [UInt8] {
        bytes.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }
}
