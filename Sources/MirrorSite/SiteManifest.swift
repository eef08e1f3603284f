/// The map of an offline folder, saved as `.mirror/manifest.json`: every saved URL with its
/// file, status, type, validators, size and digest, and every redirect.
public struct SiteManifest: Sendable, Codable, Equatable {
    public struct Resource: Sendable, Codable, Equatable {
        public let path: String
        public let status: Int
        public let contentType: String?
        public let size: Int
        public let sha256: String
        public let etag: String?
        public let lastModified: String?
        /// Whether the file's links were rewritten for offline use (done once, at `finish`).
        public var rewritten = false

        /// HTML and CSS have links to rewrite.
        var kind: LinkRewriter.Kind? {
            let type = (contentType ?? "").lowercased()
            if type.contains("html") { return .html }
            if type.hasPrefix("text/css") { return .css }
            return nil
        }
    }

    public var version = 1
    public var resources: [String: Resource] = [:]
    public var redirects: [String: String] = [:]

    public init() {}

    /// The file a URL ended up in, following redirects (at most 10 hops, loops give nil).
    public func path(for url: String) -> String? {
        var current = url
        for _ in 0...10 {
            if let resource = resources[current] { return resource.path }
            guard let next = redirects[current] else { return nil }
            current = next
        }
        return nil
    }
}

/// Failures writing the offline folder.
public enum SiteError: Error, CustomStringConvertible {
    case unmappable(String)
    case io(path: String, message: String)

    public var description: String {
        switch self {
        case .unmappable(let url): return "no local file name for \(url)"
        case .io(let path, let message): return "cannot write \(path): \(message)"
        }
    }
}
