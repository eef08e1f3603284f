/// A host allowed by the user: `example.org`, `example.org:8080` or `*.example.org`
/// (which matches example.org itself and every subdomain). Case-insensitive.
public struct HostPattern: Sendable, Equatable, CustomStringConvertible {
    public let host: String
    public let port: Int?
    public let includesSubdomains: Bool

    public init?(_ text: String) {
        var rest = Substring(text.lowercased())
        includesSubdomains = rest.hasPrefix("*.")
        if includesSubdomains { rest = rest.dropFirst(2) }
        if let colon = rest.lastIndex(of: ":"), !rest.hasSuffix("]") {
            guard let port = Int(rest[rest.index(after: colon)...]), (1...65535).contains(port) else { return nil }
            self.port = port
            rest = rest[..<colon]
        } else {
            port = nil
        }
        guard !rest.isEmpty, !rest.contains("/"), !rest.contains("*") else { return nil }
        host = String(rest)
    }

    /// Whether a URL's host and effective port fall under this pattern, comparing bytes as the
    /// crawl's URLs do.
    public func matches(host candidate: String, port candidatePort: Int) -> Bool {
        if let port, port != candidatePort { return false }
        let name = candidate.lowercased()
        if name.bytesEqual(host) { return true }
        return includesSubdomains && name.bytesEnd(with: "." + host)
    }

    public var description: String {
        (includesSubdomains ? "*." : "") + host + (port.map { ":\($0)" } ?? "")
    }
}
