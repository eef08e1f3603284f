public import MirrorCore

/// The Mozilla Public Suffix List (publicsuffix.org): the domains under which anyone may
/// register names (`com`, `co.uk`, `github.io`). A cookie for one of them would go to every
/// site under it, so the cookie jar refuses such cookies. Both the ICANN and the PRIVATE
/// section count, as in browsers.
public struct PublicSuffixList: Sendable {
    /// Where Debian's `publicsuffix` package puts the list.
    public static let systemPath = "/usr/share/publicsuffix/public_suffix_list.dat"

    // Rules are slices of the list's text, looked up by slices of a domain, as bytes: no string
    // is made for either, and no Unicode normalization is done (the list is normalized and
    // lower-cased already).
    /// Plain rules (`co.uk`).
    private var rules: Set<UTF8Key> = []
    /// Wildcard rules without their `*.` (`ck` for `*.ck`).
    private var wildcards: Set<UTF8Key> = []
    /// Exception rules without their `!` (`www.ck` for `!www.ck`).
    private var exceptions: Set<UTF8Key> = []

    /// Parses the list's text format: one rule per line, read up to the first whitespace;
    /// `//` comments and blank lines skipped. Internationalized rules are kept in Unicode and
    /// in their `xn--` form.
    public init(_ text: String) {
        for line in text.utf8.split(separator: UInt8(ascii: "\n")) {
            let rule = line.prefix { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") && $0 != UInt8(ascii: "\r") }
            guard !rule.isEmpty, !rule.starts(with: "//".utf8) else { continue }
            if rule.first == UInt8(ascii: "!") {
                Self.insert(Substring(rule.dropFirst()), into: &exceptions)
            } else if rule.starts(with: "*.".utf8) {
                Self.insert(Substring(rule.dropFirst(2)), into: &wildcards)
            } else {
                Self.insert(Substring(rule), into: &rules)
            }
        }
    }

    private static func insert(_ rule: Substring, into set: inout Set<UTF8Key>) {
        set.insert(UTF8Key(rule))
        if rule.utf8.contains(where: { $0 >= 0x80 }) { set.insert(UTF8Key(Punycode.asciiDomain(rule))) }
    }

    /// The list at `path`; nil when there is no file there.
    public static func load(path: String) throws(FileSystemError) -> PublicSuffixList? {
        guard let bytes = try FileReading.contents(of: path) else { return nil }
        return PublicSuffixList(String(decoding: bytes, as: UTF8.self))
    }

    /// The system's list (`systemPath`); nil when it is missing or unreadable.
    public static func system() -> PublicSuffixList? {
        try? load(path: systemPath)
    }

    /// Whether `domain` (lower-cased, ASCII or Unicode) is a public suffix: a rule names it, a
    /// wildcard rule names its parent, or it is a single label (the list's implicit `*` rule) —
    /// unless an exception rule names it or one of its parents. A trailing dot (`com.`) changes
    /// nothing.
    public func isPublicSuffix(_ domain: String) -> Bool {
        let domain = domain.utf8.last == UInt8(ascii: ".") ? Substring(domain.utf8.dropLast()) : Substring(domain)
        var suffix = domain
        var parent: Substring?
        while true {
            if exceptions.contains(UTF8Key(suffix)) { return false }
            guard let dot = suffix.utf8.firstIndex(of: UInt8(ascii: ".")) else { break }
            suffix = suffix[suffix.index(after: dot)...]
            if parent == nil { parent = suffix }
        }
        guard let parent else { return !domain.isEmpty }
        return rules.contains(UTF8Key(domain)) || wildcards.contains(UTF8Key(parent))
    }
}
