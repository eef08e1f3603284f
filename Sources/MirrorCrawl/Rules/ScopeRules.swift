import MirrorCore

/// Decides which discovered URLs are fetched, and says why not.
struct ScopeRules: Sendable {
    let configuration: CrawlConfiguration
    /// The seeds' hosts (with their ports) plus --allow-host patterns.
    let hosts: [HostPattern]

    init(configuration: CrawlConfiguration) {
        self.configuration = configuration
        let seedHosts = configuration.seeds.compactMap(URLParts.init).compactMap { HostPattern("\($0.host):\($0.effectivePort)") }
        hosts = seedHosts + configuration.allowedHosts
    }

    func isAllowedHost(_ url: URLParts) -> Bool {
        hosts.contains { $0.matches(host: url.host, port: url.effectivePort) }
    }

    /// nil when `url` may be fetched in `role` at `depth`; otherwise the reason it may not.
    func check(_ url: URLParts, normalized: String, role: CrawlRole, depth: Int) -> SkipReason? {
        if normalized.utf8.count > configuration.maxURLLength { return .urlTooLong }
        if configuration.exclude.contains(where: { $0.matches(normalized) }) { return .excluded }
        switch role {
        case .page:
            if !isAllowedHost(url) { return .offsite }
            if !configuration.include.isEmpty, !configuration.include.contains(where: { $0.matches(normalized) }) {
                return .notIncluded
            }
            if let maxDepth = configuration.maxDepth, depth > maxDepth { return .depth }
        case .requisite:
            if !configuration.requisites && !isAllowedHost(url) { return .requisitesOff }
        }
        if hasRepeatedSegments(url.path) { return .repeatedSegments }
        return nil
    }

    /// /a/b/a/b/a/b/… or /x/x/x/x: some segment occurs more often than allowed.
    func hasRepeatedSegments(_ path: String) -> Bool {
        // In a path of no more segments than a segment may occur, none occurs too often: most
        // paths, counted by bytes without a dictionary made for each URL.
        var segments = 0
        var inSegment = false
        for byte in path.utf8 {
            if byte == UInt8(ascii: "/") {
                inSegment = false
            } else if !inSegment {
                inSegment = true
                segments += 1
            }
        }
        guard segments > configuration.maxRepeatedSegments else { return false }
        var counts: [Substring: Int] = [:]
        for segment in path.split(separator: "/") {
            counts[segment, default: 0] += 1
            if counts[segment]! > configuration.maxRepeatedSegments { return true }
        }
        return false
    }

    /// Resolves a reference and normalizes it, removing ignored query parameters.
    func resolve(_ reference: String, against base: URLParts) -> String? {
        guard var parts = base.resolve(reference) else { return nil }
        parts.fragment = nil
        if let query = parts.query, !configuration.ignoredParameters.isEmpty {
            let kept = QueryParameters.split(query).filter { parameter in
                let name = String(QueryParameters.name(of: parameter))
                return !parameter.isEmpty && !configuration.ignoredParameters.contains { $0.matches(name) }
            }
            parts.query = kept.isEmpty ? nil : kept.joined(separator: "&")
        }
        return parts.normalized
    }
}
