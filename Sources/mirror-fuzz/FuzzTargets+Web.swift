import Foundation

@testable import MirrorCore
@testable import MirrorCrawl
@testable import MirrorSite

extension FuzzTargets {
    /// The parsers of what a site says about itself and its addresses: robots.txt, URLs and
    /// their names on disk.
    static let web: [FuzzTarget] = [robots, urlNormalize, urlNaming]

    // MARK: robots.txt

    static let robots = FuzzTarget(
        "robots", dictionary: "robots.dict",
        contract: "RFC 9309 as a plain reading has it: same rules, delay and sitemaps; each pattern matches as a reference "
            + "matcher does, the longest match wins, allow a tie; one more Disallow never lets a blocked path through"
    ) { input in
        let text = String(decoding: input, as: UTF8.self)
        let rules = RobotsRules(text: text, userAgent: RobotsReference.userAgent)
        let reference = RobotsReference(text: text)
        require(rules.rules == reference.rules, "rules \(rules.rules.count) where the reference reads \(reference.rules.count)")
        require(rules.crawlDelay == reference.crawlDelay, "crawl delay \(String(describing: rules.crawlDelay))")
        if let delay = rules.crawlDelay {
            require(delay.isFinite && delay >= 0 && delay <= RobotsRules.longestCrawlDelay, "crawl delay \(delay) out of range")
        }
        require(rules.sitemaps == reference.sitemaps, "sitemaps \(rules.sitemaps) where the reference reads \(reference.sitemaps)")

        let probes = RobotsReference.probes(for: rules.rules)
        let targets = probes.map { Array(PercentEncoding.normalize($0.isEmpty ? "/" : $0, allowing: .query).utf8) }
        let before = probes.map(rules.allows)
        // Each pattern on each probe as the reference matches it, and each decision as the
        // reference makes it of those matches, while its table stays small.
        let checked = rules.rules.count <= 24 && rules.rules.allSatisfy { $0.pattern.count <= 256 }
        if checked {
            for (index, target) in targets.enumerated() {
                let matching = rules.rules.filter { rule in
                    let expected = RobotsReference.matches(rule.pattern, target)
                    require(
                        RobotsRules.matches(rule.pattern, target) == expected,
                        "pattern \(String(decoding: rule.pattern, as: UTF8.self)) on \(probes[index])")
                    return expected
                }
                require(before[index] == RobotsReference.decision(matching, probes[index]), "decision on \(probes[index])")
            }
        }
        // One more Disallow of ours blocks what was blocked, and whatever it newly blocks it
        // matches.
        for extra in RobotsReference.extraPatterns(probes) {
            let pattern = RobotsRules.normalizedPattern(extra)
            let stricter = RobotsRules(rules: rules.rules + [.init(allow: false, pattern: pattern)], crawlDelay: nil, sitemaps: [])
            for (index, allowed) in before.enumerated() {
                let now = stricter.allows(probes[index])
                require(allowed || !now, "Disallow: \(extra) let \(probes[index]) through")
                if checked && allowed && !now {
                    require(RobotsReference.matches(pattern, targets[index]), "Disallow: \(extra) blocked \(probes[index]) unmatched")
                }
            }
        }
        // The same Disallow written into the file: our group gains it (or is made of it).
        let appended = RobotsRules(
            text: text + "\nUser-agent: \(RobotsReference.token)\nDisallow: /fuzz-extra", userAgent: RobotsReference.userAgent)
        let extraRule = RobotsRules.Rule(allow: false, pattern: Array("/fuzz-extra".utf8))
        require(
            appended.rules == (reference.oursFound ? rules.rules : []) + [extraRule],
            "an appended group of ours gave \(appended.rules.count) rules")
        // A long path of the pattern's pieces stays fast (libFuzzer's -timeout watches).
        let long = Array(("/" + String(repeating: "a*b$/", count: 100)).utf8)
        for rule in rules.rules.prefix(32) { _ = RobotsRules.matches(rule.pattern, long) }
    }

    // MARK: URL normalisation and resolution

    static let urlNormalize = FuzzTarget(
        "url-normalize", dictionary: "http.dict",
        contract: "normalize is idempotent, ASCII and parses again; percent-normalisation is idempotent, ASCII and decodes as "
            + "its input; dot segments go; resolving is total and a normalized URL resolves to itself; fragment splits agree"
    ) { input in
        let text = String(decoding: input, as: UTF8.self)
        let lines = input.split(separator: 0x0A, omittingEmptySubsequences: false).prefix(16).map { String(decoding: $0, as: UTF8.self) }
        for candidate in [text] + (lines.count > 1 ? lines : []) {
            checkNormalization(candidate)
            for component in [PercentEncoding.Component.path, .query] {
                let once = PercentEncoding.normalize(candidate, allowing: component)
                require(once.utf8.allSatisfy { $0 < 0x80 && component.allows($0) || $0 == UInt8(ascii: "%") }, "not ASCII: \(once)")
                require(PercentEncoding.normalize(once, allowing: component) == once, "percent-normalizing \(once) again changes it")
                require(
                    PercentEncoding.decode(bytes: Array(once.utf8)) == PercentEncoding.decode(bytes: Array(candidate.utf8)),
                    "percent-normalizing changed what \(candidate.debugDescription) decodes to")
            }
            if candidate.utf8.first == UInt8(ascii: "/") {
                let path = URLParts.removeDotSegments(candidate)
                require(path.utf8.first == UInt8(ascii: "/"), "a path lost its leading /")
                require(
                    !path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).contains {
                        $0.elementsEqual(".".utf8) || $0.elementsEqual("..".utf8)
                    },
                    "dot segment left in \(path)")
                require(URLParts.removeDotSegments(path) == path, "removing dot segments twice changes \(path)")
            }
        }
        var bases = [URLParts("http://a/b/c/d;p?q")!, URLParts("https://h.example:8443/docs/a/page.html?x=1#f")!]
        if let first = lines.first, let base = URLParts(first) { bases.append(base) }
        for base in bases {
            for reference in lines.prefix(8) {
                let resolved = base.resolve(reference)
                if let resolved {
                    require(resolved.scheme == "http" || resolved.scheme == "https", "resolved to scheme \(resolved.scheme)")
                    let normalized = resolved.normalized
                    require(URLNormalizer.normalize(normalized) == normalized, "resolved \(normalized) normalizes again otherwise")
                    require(base.resolve(normalized)?.normalized == normalized, "\(normalized) does not resolve to itself")
                }
                if let (target, fragment) = URLParts.splitAtFragment(reference) {
                    var split = base.resolve(String(target))
                    split?.fragment = fragment.map(String.init)
                    require(split == resolved, "resolving \(reference.debugDescription) split at its fragment differs")
                }
            }
        }
    }

    /// The normalized form of `text`, when it has one, is its own normalized form, parses into
    /// the parts it was written from, and is ASCII but for the host (kept as written, lower-cased:
    /// internationalized hosts are not made `xn--` names).
    private static func checkNormalization(_ text: String) {
        guard let normalized = URLNormalizer.normalize(text) else { return }
        guard let parts = URLParts(normalized) else { violation("normalized \(normalized.debugDescription) does not parse") }
        require(
            parts.normalized == normalized, "normalizing \(normalized.debugDescription) again gives \(parts.normalized.debugDescription)")
        require(parts.fragment == nil && parts.userinfo == nil, "normalized URL keeps a fragment or userinfo")
        require(parts.host == parts.host.lowercased(), "host \(parts.host.debugDescription) not lower-cased")
        // By bytes: a host may end in a mark that makes one `Character` with the `/` after it.
        let afterHost = normalized.utf8.dropFirst(parts.scheme.utf8.count + 3 + parts.host.utf8.count)
        require(
            normalized.utf8.starts(with: (parts.scheme + "://" + parts.host).utf8) && afterHost.allSatisfy { $0 > 0x20 && $0 < 0x7F },
            "normalized URL not ASCII past its host: \(normalized.debugDescription)")
    }

    // MARK: URL to path

    static let urlNaming = FuzzTarget(
        "url-naming", dictionary: "http.dict",
        contract: "every path (preferred and registered) is relative, inside the root, of safe components within 255 bytes; "
            + "it depends on the normalized URL alone; distinct URLs never share a path (nor once folded) unless they "
            + "prefer one path and bring one body, before and after a rejoin; no file sits where a folder is; saved "
            + "assignments rebuild the registry"
    ) { input in
        let lines = input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).prefix(24)
        let mapper = PathMapper()
        let narrow = PathMapper(maxSegmentBytes: 32)
        var registry = PathRegistry()
        var given: [String: (path: LocalPath, preferred: LocalPath, body: String)] = [:]
        for (index, line) in lines.enumerated() {
            // `URL`, `URL<TAB>content type` or `URL<TAB>content type<TAB>body`
            let fields = line.split(separator: UInt8(ascii: "\t"), maxSplits: 2, omittingEmptySubsequences: false)
            let url = String(decoding: fields[0], as: UTF8.self)
            let type = fields.count > 1 ? String(decoding: fields[1], as: UTF8.self) : nil
            let normalized = URLNormalizer.normalize(url)
            let preferred = mapper.path(for: url, contentType: type)
            require((normalized == nil) == (preferred == nil), "a path exactly for the URLs that normalize: \(url.debugDescription)")
            guard let normalized, let preferred else { continue }
            checkPath(preferred, maxBytes: 200, url: url)
            if let short = narrow.path(for: url, contentType: type) { checkPath(short, maxBytes: 32, url: url) }
            if URLParts(normalized) != nil {
                require(mapper.path(for: normalized, contentType: type) == preferred, "\(url) maps otherwise once normalized")
            }
            // The body named, else: every other URL brings a body of its own, the rest one body
            // per preferred path, shared.
            let body =
                fields.count > 2
                ? "body " + String(decoding: fields[2], as: UTF8.self) : index % 2 == 0 ? "own " + normalized : "same " + preferred.string
            let path = registry.assign(url: normalized, preferred: preferred, sha256: body)
            checkPath(path, maxBytes: 200, url: url)
            // No limit on the whole path is promised (PathMapper bounds each component only):
            // this bound says it grows with the URL, at most an escape per byte.
            require(path.string.utf8.count <= 3 * normalized.utf8.count + 64, "\(url) → \(path): longer than its URL allows")
            require(path.components.count == preferred.components.count, "\(url) registered at another depth: \(path)")
            if let earlier = given[normalized] {
                require(earlier.preferred != preferred || earlier.body != body || earlier.path == path, "\(url) moved to \(path)")
            }
            given[normalized] = (path, preferred, body)
            require(registry.assign(url: normalized, preferred: preferred, sha256: body) == path, "\(url) moved on a second assign")
        }
        let bodies = given.mapValues(\.body)
        checkRegistry(registry, bodies: bodies)
        // URLs that shared a file, left it with another body, and whose old sharers brought that
        // body since, share it again: at the sharer's very path, never the file they leave (which
        // the caller deletes), not even once folded.
        let moves = registry.rejoin()
        for move in moves {
            let joined = Array(move.joined.utf8)
            require(
                move.left.precomposedStringWithCompatibilityMapping.lowercased()
                    != move.joined.precomposedStringWithCompatibilityMapping.lowercased(),
                "rejoined \(move.urls) at \(move.joined), the file they leave")
            require(registry.path(of: move.sharer).map { Array($0.utf8) } == joined, "rejoined at \(move.joined), not the sharer's")
            for url in move.urls { require(registry.path(of: url).map { Array($0.utf8) } == joined, "\(url) not rejoined") }
        }
        if !moves.isEmpty { checkRegistry(registry, bodies: bodies) }
        let assignments = registry.assignments
        require(PathRegistry(assignments: assignments.reversed()).assignments == assignments, "the registry rebuilt holds otherwise")
    }

    /// Each URL's file holds its body; distinct URLs share a file only when they prefer one path
    /// and bring one body; no two files are one once folded, and none is where a folder is.
    private static func checkRegistry(_ registry: PathRegistry, bodies: [String: String]) {
        var holders: [[Unicode.Scalar]: PathRegistry.Assignment] = [:]
        let assignments = registry.assignments
        require(assignments.count == bodies.count, "\(assignments.count) URLs with a path, \(bodies.count) assigned")
        for file in assignments {
            require(bodies[file.url] == file.sha256, "\(file.url) holds \(file.sha256), not its body")
            let exact = Array(file.path.unicodeScalars)
            if let holder = holders[exact] {
                require(
                    holder.preferred == file.preferred && holder.sha256 == file.sha256 && !file.sha256.hasPrefix("own "),
                    "\(file.url) and \(holder.url) both have \(file.path)")
            }
            holders[exact] = file
        }
        // Folded as disks that ignore case, or case and normalization, do: each component alone,
        // as NFKC makes a `/` of `／`.
        let folds: [(String) -> String] = [{ $0.lowercased() }, { $0.precomposedStringWithCompatibilityMapping.lowercased() }]
        for fold in folds {
            let files = assignments.map { file in
                let components = file.path.unicodeScalars.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
                return (path: file.path, exact: Array(file.path.unicodeScalars), folded: components.map(fold))
            }
            var owners: [[String]: [Unicode.Scalar]] = [:]
            for file in files {
                if let owner = owners[file.folded] { require(owner == file.exact, "\(file.path) is another file once folded") }
                owners[file.folded] = file.exact
            }
            for file in files {
                for end in 1..<file.folded.count {
                    require(owners[Array(file.folded[..<end])] == nil, "\(file.path) needs a folder that is a file")
                }
            }
        }
    }

    /// Windows' device names, in any case, as the part of a name before its first dot.
    private static let reservedNames: Set<String> = Set(
        ["con", "prn", "aux", "nul", "conin$", "conout$", "clock$"] + (0...9).flatMap { ["com\($0)", "lpt\($0)"] })

    /// A path inside the root, of components every file system takes, read by bytes as file
    /// systems read names (a mark before a dot makes one `Character` with it, and Windows still
    /// drops the dot).
    private static func checkPath(_ path: LocalPath, maxBytes: Int, url: String) {
        require(path.components.count >= 2, "\(url) → \(path): no host folder")
        require(path.string == path.components.joined(separator: "/"), "\(url) → \(path): string and components differ")
        for component in path.components {
            let problem: String? =
                if component.isEmpty || component == "." || component == ".." {
                    "empty or dot component"
                } else if component.utf8.count > min(maxBytes, 255) {
                    "longer than \(maxBytes) bytes"
                } else if component.unicodeScalars.contains(where: {
                    $0.value < 0x20 || $0.value == 0x7F || "<>:\"/\\|?*".unicodeScalars.contains($0)
                }) {
                    "forbidden character"
                } else if component.utf8.last == UInt8(ascii: ".") || component.utf8.last == 0x20 || component.utf8.first == 0x20 {
                    "dot or space at an edge"
                } else if reservedNames.contains(
                    String(
                        decoding: component.utf8.prefix { $0 != UInt8(ascii: ".") }.reversed().drop { $0 == 0x20 }.reversed(), as: UTF8.self
                    )
                    .lowercased())
                {
                    "Windows device name"
                } else {
                    nil
                }
            if let problem { violation("\(url.debugDescription) → \(path): \(problem) in \(component.debugDescription)") }
        }
    }
}

/// RFC 9309 read the plain way, on the file's bytes, to hold `RobotsRules` against: groups
/// start at a `user-agent` line after a rule; ours are combined; with none of ours, the `*`
/// groups; patterns match by a table of the positions each prefix of the pattern can end at.
private struct RobotsReference {
    static let token = "mirror"
    static let userAgent = "Mirror/1.0 (+https://example.org/fuzz)"

    var rules: [RobotsRules.Rule] = []
    var crawlDelay: Double?
    var sitemaps: [String] = []
    /// Whether a group is ours (then the `*` groups are not).
    var oursFound = false

    init(text: String) {
        struct Group {
            var agents: [String] = []
            var hasRules = false
            var rules: [RobotsRules.Rule] = []
            var delay: Double?
        }
        var groups: [Group] = []
        let bytes = Array(text.utf8)
        for line in bytes.split(omittingEmptySubsequences: true, whereSeparator: { $0 == 0x0A || $0 == 0x0D }) {
            let content = line.prefix { $0 != UInt8(ascii: "#") }
            guard let colon = content.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let key = String(decoding: Self.trimmed(content[..<colon]), as: UTF8.self).lowercased()
            let value = String(decoding: Self.trimmed(content[(colon + 1)...]), as: UTF8.self)
            switch key {
            case "user-agent":
                if groups.last?.hasRules ?? true { groups.append(Group()) }
                groups[groups.count - 1].agents.append(value.lowercased())
            case "allow", "disallow", "crawl-delay":
                guard !groups.isEmpty else { continue }
                groups[groups.count - 1].hasRules = true
                if key == "crawl-delay" {
                    if let seconds = Double(value), seconds >= 0 {
                        groups[groups.count - 1].delay = min(seconds, RobotsRules.longestCrawlDelay)
                    }
                } else if !value.isEmpty {
                    groups[groups.count - 1].rules.append(.init(allow: key == "allow", pattern: RobotsRules.normalizedPattern(value)))
                }
            case "sitemap":
                sitemaps.append(value)
            default:
                continue
            }
        }
        let ours = groups.filter { $0.agents.contains(Self.token) }
        oursFound = !ours.isEmpty
        let chosen = ours.isEmpty ? groups.filter { $0.agents.contains("*") } : ours
        rules = chosen.flatMap(\.rules)
        crawlDelay = chosen.compactMap(\.delay).last
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else { return [] }
        return bytes[first...last]
    }

    /// Whether `pattern` (`*` any run, a final `$` the end) matches `target` from its start.
    static func matches(_ pattern: [UInt8], _ target: [UInt8]) -> Bool {
        let anchored = pattern.last == UInt8(ascii: "$")
        let body = anchored ? pattern.dropLast() : pattern[...]
        // ends[j]: the pattern read so far can end just before target[j].
        var ends = [Bool](repeating: false, count: target.count + 1)
        var next = ends
        ends[0] = true
        for byte in body {
            if byte == UInt8(ascii: "*") {
                var reached = false
                for j in 0...target.count {
                    reached = reached || ends[j]
                    next[j] = reached
                }
            } else {
                next[0] = false
                for j in 0..<target.count { next[j + 1] = ends[j] && target[j] == byte }
            }
            swap(&ends, &next)
        }
        return anchored ? ends[target.count] : ends.contains(true)
    }

    /// The longest of the matching patterns decides, `allow` winning a tie; none allows; so
    /// does `/robots.txt`.
    static func decision(_ matching: [RobotsRules.Rule], _ path: String) -> Bool {
        if path == "/robots.txt" { return true }
        guard let longest = matching.map(\.pattern.count).max() else { return true }
        return matching.contains { $0.pattern.count == longest && $0.allow }
    }

    /// Paths to decide on: some fixed, and for each of the first patterns the pattern with its
    /// stars filled and its `$` dropped, that without its last byte, and that going on past it.
    static func probes(for rules: [RobotsRules.Rule]) -> [String] {
        var probes = ["/robots.txt", "/a/b?c=d", "/x.php", "/%7Euser", "/café", ""]
        for rule in rules.prefix(3) {
            let pattern = String(decoding: rule.pattern.prefix(256), as: UTF8.self)
            let filled = pattern.replacingOccurrences(of: "*", with: "x")
            let ended = filled.hasSuffix("$") ? String(filled.dropLast()) : filled
            probes += [ended, String(ended.dropLast()), ended + "/more"]
        }
        return probes
    }

    /// Disallow patterns to add: an anchored one with a star, and the last probe.
    static func extraPatterns(_ probes: [String]) -> [String] {
        ["/*.php$"] + probes.suffix(1).filter { !$0.isEmpty }
    }
}
