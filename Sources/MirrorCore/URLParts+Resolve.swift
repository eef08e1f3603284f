extension URLParts {
    /// Resolves a reference found in a document against this URL (RFC 3986 §5.2, with
    /// browsers' leniencies: surrounding whitespace, tabs and newlines removed, `\` read as `/`).
    /// Returns nil for references that are not http(s) (mailto:, javascript:, data:, …).
    public func resolve(_ reference: String) -> URLParts? {
        let trimmed = reference.trimmingSpaces()
        let hasControls = trimmed.utf8.contains { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        // Scalar by scalar: CR LF is one `Character`, equal to neither CR nor LF.
        let cleaned =
            (hasControls ? String(String.UnicodeScalarView(trimmed.unicodeScalars.filter { !Self.isTabOrLineBreak($0) })) : String(trimmed))
            .replacingBackslashes()
        if let scheme = Self.scheme(of: cleaned) {
            guard scheme == "http" || scheme == "https" else { return nil }
            // "http:path" without "//" is relative in browsers when the scheme matches.
            let rest = cleaned.utf8.dropFirst(scheme.utf8.count + 1)
            if !rest.starts(with: "//".utf8) {
                guard scheme == self.scheme else { return nil }
                return resolve(String(Substring(rest)))
            }
            return URLParts(cleaned)
        }
        if cleaned.utf8.starts(with: "//".utf8) { return URLParts("\(scheme):\(cleaned)") }
        var result = self
        result.fragment = nil
        // On bytes, as `URLParts.init`: a combining mark after `#`, `?` or `/` stays after it.
        var text = cleaned.utf8[...]
        if let hash = text.firstIndex(of: UInt8(ascii: "#")) {
            result.fragment = String(Substring(text[text.index(after: hash)...]))
            text = text[..<hash]
        }
        if text.isEmpty { return result }
        var pathPart = text
        var query: String?
        if let question = text.firstIndex(of: UInt8(ascii: "?")) {
            query = String(Substring(text[text.index(after: question)...]))
            pathPart = text[..<question]
        }
        if pathPart.isEmpty {
            result.query = query
            return result
        }
        result.query = query
        if pathPart.first == UInt8(ascii: "/") {
            result.path = Self.removeDotSegments(String(Substring(pathPart)))
        } else {
            let basePath = (path.isEmpty ? "/" : path).utf8
            let directory = basePath.lastIndex(of: UInt8(ascii: "/")).map { basePath[...$0] } ?? basePath[..<basePath.startIndex]
            result.path = Self.removeDotSegments(String(Substring(directory)) + String(Substring(pathPart)))
        }
        return result
    }

    /// `reference` cut at its first `#`, when resolving the part before it and then setting the
    /// fragment gives what resolving the whole would: no whitespace or control at either end nor
    /// before the `#`, no tab, line break or `\` inside. A page links to few documents through
    /// many fragments, so callers resolve each target once. Nil when the reference must be
    /// resolved whole.
    public static func splitAtFragment(_ reference: String) -> (target: Substring, fragment: Substring?)? {
        var copy = reference
        switch copy.withUTF8(fragmentSplit) {
        case .refused: return nil
        case .whole: return (reference[...], nil)
        case .at(let offset):
            let hash = reference.utf8.index(reference.startIndex, offsetBy: offset)
            return (reference[..<hash], reference[reference.utf8.index(after: hash)...])
        }
    }

    /// Where `splitAtFragment` cuts a reference.
    private enum FragmentSplit {
        case refused, whole
        case at(Int)
    }

    /// One pass over the reference's bytes (the generic `contains(where:)` and `firstIndex(of:)`
    /// on `utf8` were two, a byte at a time through its iterator).
    private static func fragmentSplit(_ bytes: UnsafeBufferPointer<UInt8>) -> FragmentSplit {
        guard let first = bytes.first, let last = bytes.last, first > 0x20, last > 0x20 else { return .refused }
        var hash: Int?
        for offset in bytes.indices {
            switch bytes[offset] {
            case 0x09, 0x0A, 0x0D, UInt8(ascii: "\\"): return .refused
            case UInt8(ascii: "#") where hash == nil: hash = offset
            default: break
            }
        }
        // The part before the `#` is trimmed alone: a control or space ending it would go.
        if let hash, hash > 0, bytes[hash - 1] <= 0x20 { return .refused }
        return hash.map(FragmentSplit.at) ?? .whole
    }

    /// The scheme of an absolute reference, lower-cased (RFC 3986 §3.1); nil for a relative one.
    public static func scheme(of reference: String) -> String? {
        let bytes = reference.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon != bytes.startIndex else { return nil }
        let candidate = bytes[..<colon]
        guard let first = candidate.first, Self.isLetter(first),
            candidate.allSatisfy({
                Self.isLetter($0) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                    || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
            })
        else { return nil }
        return String(Substring(candidate)).lowercased()
    }

    /// What browsers drop from anywhere in a URL: tabs and line breaks.
    public static func isTabOrLineBreak(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\t" || scalar == "\n" || scalar == "\r"
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }
}
