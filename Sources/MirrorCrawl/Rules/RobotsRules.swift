import MirrorCore

/// The rules of one site's robots.txt for one crawler (RFC 9309).
///
/// - Groups start with one or more `user-agent` lines; every group whose token matches
///   ours (case-insensitively) is combined, even one without rules (which allows everything);
///   with none, the `*` groups apply; with neither, everything is allowed.
/// - Lines end at CR, LF or CR LF; `#` starts a comment. The file is read as bytes: a
///   combining mark after `#`, `:` or a line break hides none of them.
/// - `allow`/`disallow` patterns support `*` and a final `$`; the longest matching pattern
///   wins, and `allow` wins a tie. `/robots.txt` itself is always allowed.
/// - `crawl-delay` (not in the RFC, widely used) and `sitemap` lines are read too.
public struct RobotsRules: Sendable, Equatable {
    struct Rule: Sendable, Equatable {
        let allow: Bool
        let pattern: [UInt8]
    }

    let rules: [Rule]
    /// Seconds to wait between requests, when the matched group says so: at most
    /// `longestCrawlDelay`.
    public let crawlDelay: Double?
    /// Sitemap URLs listed anywhere in the file.
    public let sitemaps: [String]

    /// The longest `crawl-delay` taken, in seconds: a longer one (`1e300`, `inf`) is read as a
    /// day, which keeps a host all but closed, where the frontier's whole milliseconds in an
    /// `Int` would overflow.
    public static let longestCrawlDelay: Double = 86_400

    /// Everything allowed (robots.txt missing: a 4xx).
    public static let allowAll = RobotsRules(rules: [], crawlDelay: nil, sitemaps: [])
    /// Nothing allowed (robots.txt unreachable or a 5xx: the site may be in trouble).
    public static let disallowAll = RobotsRules(rules: [Rule(allow: false, pattern: Array("/".utf8))], crawlDelay: nil, sitemaps: [])

    init(rules: [Rule], crawlDelay: Double?, sitemaps: [String]) {
        self.rules = rules
        self.crawlDelay = crawlDelay
        self.sitemaps = sitemaps
    }

    /// Parses robots.txt for a crawler whose User-Agent is `userAgent` (its product token,
    /// e.g. `mirror` in `mirror/0.1 (+…)`, is what groups are matched against).
    public init(text: String, userAgent: String) {
        let token = Self.productToken(userAgent)
        var ours: [Rule] = []
        var anyone: [Rule] = []
        var ourDelay: Double?
        var anyoneDelay: Double?
        var sitemaps: [String] = []
        var groupAgents: [String] = []
        var inRules = false
        var oursFound = false
        // Bytes, not `Character`s: CR LF is one `Character`, equal to neither CR nor LF.
        for rawLine in Array(text.utf8).split(omittingEmptySubsequences: true, whereSeparator: { $0 == 0x0A || $0 == 0x0D }) {
            let line = rawLine.prefix { $0 != UInt8(ascii: "#") }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let key = Self.trimmedText(line[..<colon]).lowercased()
            let value = Self.trimmedText(line[(colon + 1)...])
            switch key {
            case "user-agent":
                if inRules {
                    groupAgents = []
                    inRules = false
                }
                groupAgents.append(value.lowercased())
                if groupAgents.last == token { oursFound = true }
            case "allow", "disallow":
                inRules = true
                guard !value.isEmpty else { continue }  // "Disallow:" with no path allows everything
                let rule = Rule(allow: key == "allow", pattern: Self.normalizedPattern(value))
                if groupAgents.contains(token) { ours.append(rule) }
                if groupAgents.contains("*") { anyone.append(rule) }
            case "crawl-delay":
                inRules = true
                guard let value = Double(value), value >= 0 else { continue }
                let seconds = min(value, Self.longestCrawlDelay)
                if groupAgents.contains(token) { ourDelay = seconds }
                if groupAgents.contains("*") { anyoneDelay = seconds }
            case "sitemap":
                sitemaps.append(value)
            default:
                continue
            }
        }
        self.init(rules: oursFound ? ours : anyone, crawlDelay: oursFound ? ourDelay : anyoneDelay, sitemaps: sitemaps)
    }

    /// The text of `bytes` without the spaces and tabs around it.
    private static func trimmedText(_ bytes: ArraySlice<UInt8>) -> String {
        let kept = bytes.drop { $0 == 0x20 || $0 == 0x09 }
        let end = kept.lastIndex { $0 != 0x20 && $0 != 0x09 }.map { $0 + 1 } ?? kept.startIndex
        return String(decoding: kept[..<end], as: UTF8.self)
    }

    /// Whether the crawler may fetch `pathAndQuery` (e.g. `/a/b?c=d`).
    public func allows(_ pathAndQuery: String) -> Bool {
        if pathAndQuery == "/robots.txt" { return true }
        let target = Array(PercentEncoding.normalize(pathAndQuery.isEmpty ? "/" : pathAndQuery, allowing: .query).utf8)
        var best: Rule?
        for rule in rules where Self.matches(rule.pattern, target) {
            if let current = best {
                if rule.pattern.count > current.pattern.count || (rule.pattern.count == current.pattern.count && rule.allow) {
                    best = rule
                }
            } else {
                best = rule
            }
        }
        return best?.allow ?? true
    }

    /// `*` matches any run of bytes; a final `$` anchors the end; otherwise a prefix match.
    static func matches(_ pattern: [UInt8], _ target: [UInt8]) -> Bool {
        let anchored = pattern.last == UInt8(ascii: "$")
        let body = anchored ? pattern.dropLast() : pattern[...]
        let pieces = body.split(separator: UInt8(ascii: "*"), omittingEmptySubsequences: false)
        var position = 0
        for (index, piece) in pieces.enumerated() {
            if index == 0 {
                guard target.count >= piece.count, target[0..<piece.count].elementsEqual(piece) else { return false }
                position = piece.count
                continue
            }
            if index == pieces.count - 1 && anchored {
                // The last piece must end the target, at or after the current position.
                guard target.count - piece.count >= position,
                    target[(target.count - piece.count)...].elementsEqual(piece)
                else { return false }
                return true
            }
            guard let found = firstIndex(of: Array(piece), in: target, from: position) else { return false }
            position = found + piece.count
        }
        return !anchored || position == target.count
    }

    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty else { return start }
        guard haystack.count >= needle.count else { return nil }
        var index = start
        while index + needle.count <= haystack.count {
            if haystack[index] == needle[0] && haystack[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    /// Patterns are compared in normalized percent-encoding, like paths; `*` and `$` stay
    /// literal operators, and an escaped `%2A` stays an escaped star.
    static func normalizedPattern(_ value: String) -> [UInt8] {
        Array(PercentEncoding.normalize(value, allowing: .query).utf8)
    }

    /// `mirror/0.1 (+https://…)` → `mirror`
    static func productToken(_ userAgent: String) -> String {
        String(userAgent.prefix { $0.isLetter || $0 == "-" || $0 == "_" }).lowercased()
    }
}

extension StringProtocol {
    func trimmingCharacters() -> String {
        var slice = self[...]
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
