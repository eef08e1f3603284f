extension URLParts {
    /// Resolves a reference found in a document against this URL (RFC 3986 §5.2, with
    /// browsers' leniencies: surrounding whitespace, tabs and newlines removed, `\` read as `/`).
    /// Returns nil for references that are not http(s) (mailto:, javascript:, data:, …).
    public func resolve(_ reference: String) -> URLParts? {
        var cleaned = Self.cleaned(reference)
        return cleaned.withUTF8(resolve(cleaned:))
    }

    /// `reference` trimmed, its tabs and line breaks dropped and each `\` read as `/`: the
    /// reference itself when it has none of them, as most have (found in one pass over its bytes).
    private static func cleaned(_ reference: String) -> String {
        var copy = reference
        let (isPlain, isTrimmed) = copy.withUTF8 { bytes in
            let (start, end) = Self.trimmed(bytes)
            let isPlain = !UnsafeBufferPointer(rebasing: bytes[start..<end]).contains(where: needsCleaning)
            return (isPlain, end - start == bytes.count)
        }
        if isPlain && isTrimmed { return reference }
        let trimmed = reference.trimmingSpaces()
        if isPlain { return String(trimmed) }
        let hasControls = trimmed.utf8.contains { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        // Scalar by scalar: CR LF is one `Character`, equal to neither CR nor LF.
        return (hasControls ? String(String.UnicodeScalarView(trimmed.unicodeScalars.filter { !isTabOrLineBreak($0) })) : String(trimmed))
            .replacingBackslashes()
    }

    /// A tab, a line break or a `\`.
    private static func needsCleaning(_ byte: UInt8) -> Bool {
        byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == UInt8(ascii: "\\")
    }

    /// `resolve` of a cleaned reference, on its bytes: a combining mark after `#`, `?` or `/`
    /// stays after it, as in `URLParts.init`.
    private func resolve(cleaned bytes: UnsafeBufferPointer<UInt8>) -> URLParts? {
        let startsWithTwoSlashes = { (start: Int) in
            start + 2 <= bytes.count && bytes[start] == UInt8(ascii: "/") && bytes[start + 1] == UInt8(ascii: "/")
        }
        if let colon = Self.schemeEnd(bytes) {
            guard let scheme = Self.httpScheme(bytes, 0..<colon) else { return nil }
            // "http:path" without "//" is relative in browsers when the scheme matches.
            if !startsWithTwoSlashes(colon + 1) {
                guard scheme == self.scheme else { return nil }
                return resolve(Self.text(bytes, colon + 1..<bytes.count))
            }
            return Self.parse(bytes)
        }
        if startsWithTwoSlashes(0) { return URLParts("\(scheme):" + Self.text(bytes, 0..<bytes.count)) }
        var result = self
        result.fragment = nil
        var end = bytes.count
        if let hash = bytes.firstIndex(of: UInt8(ascii: "#"), in: 0..<end) {
            result.fragment = Self.text(bytes, hash + 1..<end)
            end = hash
        }
        if end == 0 { return result }
        var pathEnd = end
        result.query = nil
        if let question = bytes.firstIndex(of: UInt8(ascii: "?"), in: 0..<end) {
            result.query = Self.text(bytes, question + 1..<end)
            pathEnd = question
        }
        if pathEnd == 0 { return result }
        let pathPart = UnsafeBufferPointer(rebasing: bytes[0..<pathEnd])
        result.path = Self.removeDotSegments(pathPart[0] == UInt8(ascii: "/") ? Self.text(bytes, 0..<pathEnd) : joined(pathPart))
        return result
    }

    /// `relative` (a path not starting with `/`) after the folder of this URL's path.
    private func joined(_ relative: UnsafeBufferPointer<UInt8>) -> String {
        var base = path.isEmpty ? "/" : path
        return base.withUTF8 { base in
            let folder = UnsafeBufferPointer(rebasing: base[..<(base.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0)])
            return String(unsafeUninitializedCapacity: folder.count + relative.count) { output in
                let end = output.initialize(fromContentsOf: folder)
                return UnsafeMutableBufferPointer(rebasing: output[end...]).initialize(fromContentsOf: relative) + end
            }
        }
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
        var reference = reference
        return reference.withUTF8 { bytes in schemeEnd(bytes).map { text(bytes, 0..<$0).lowercased() } }
    }

    /// Where the `:` after the scheme an absolute reference starts with is; nil for a relative one.
    private static func schemeEnd(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let first = bytes.first, isLetter(first) else { return nil }
        for index in bytes.indices.dropFirst() {
            let byte = bytes[index]
            if byte == UInt8(ascii: ":") { return index }
            guard
                isLetter(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "+")
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            else { return nil }
        }
        return nil
    }

    /// What browsers drop from anywhere in a URL: tabs and line breaks.
    public static func isTabOrLineBreak(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\t" || scalar == "\n" || scalar == "\r"
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }
}
