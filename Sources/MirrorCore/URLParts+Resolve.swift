extension URLParts {
    /// Resolves a reference found in a document against this URL (RFC 3986 §5.2, with
    /// browsers' leniencies: surrounding whitespace, tabs and newlines removed, `\` read as `/`).
    /// Returns nil for references that are not http(s) (mailto:, javascript:, data:, …).
    public func resolve(_ reference: String) -> URLParts? {
        let cleaned = String(reference.trimmingSpaces().filter { $0 != "\t" && $0 != "\n" && $0 != "\r" })
            .replacingBackslashes()
        if let scheme = Self.scheme(of: cleaned) {
            guard scheme == "http" || scheme == "https" else { return nil }
            // "http:path" without "//" is relative in browsers when the scheme matches.
            let rest = cleaned.dropFirst(scheme.count + 1)
            if !rest.hasPrefix("//") {
                guard scheme == self.scheme else { return nil }
                return resolve(String(rest))
            }
            return URLParts(cleaned)
        }
        if cleaned.hasPrefix("//") { return URLParts("\(scheme):\(cleaned)") }
        var result = self
        result.fragment = nil
        var text = Substring(cleaned)
        if let hash = text.firstIndex(of: "#") {
            result.fragment = String(text[text.index(after: hash)...])
            text = text[..<hash]
        }
        if text.isEmpty { return result }
        var pathPart = text
        var query: String?
        if let question = text.firstIndex(of: "?") {
            query = String(text[text.index(after: question)...])
            pathPart = text[..<question]
        }
        if pathPart.isEmpty {
            result.query = query
            return result
        }
        result.query = query
        if pathPart.hasPrefix("/") {
            result.path = Self.removeDotSegments(String(pathPart))
        } else {
            let basePath = path.isEmpty ? "/" : path
            let directory = basePath[...(basePath.lastIndex(of: "/") ?? basePath.startIndex)]
            result.path = Self.removeDotSegments(String(directory) + pathPart)
        }
        return result
    }

    /// The scheme of an absolute reference, lower-cased; nil for a relative one.
    static func scheme(of reference: String) -> String? {
        guard let colon = reference.firstIndex(of: ":") else { return nil }
        let candidate = reference[..<colon]
        guard let first = candidate.first, first.isASCII, first.isLetter,
              candidate.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") })
        else { return nil }
        return candidate.lowercased()
    }
}
