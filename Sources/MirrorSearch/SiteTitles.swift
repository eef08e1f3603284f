import Foundation
import MirrorCore

/// The parts of page titles that name the site rather than the page — "Python 3.11.2
/// documentation" in "os — Miscellaneous operating system interfaces — Python 3.11.2
/// documentation", "Doxygen" in "Doxygen: Grouping" — found as a part of the titles of at
/// least half the pages of a folder of three or more. The index leaves them out of a page's
/// title (the results show it whole): a page whose own name is the query then ranks above the
/// pages of an example project named like it, and the site's name does not rank every page alike.
struct SiteTitles {
    /// Pages, and pages per title part, by folder. A part is counted under a hash of its NFC form
    /// (`key`), not its String: most parts name one page, and at 100,000 pages their Strings
    /// would be 8 MB. The hash is the same in every process, so the same pages always make the
    /// same index.
    private var pages: [Substring: Int] = [:]
    private var parts: [Substring: [UInt64: Int]] = [:]

    private static let separators = [" — ", " – ", " - ", " | ", ": ", " :: ", " · ", " » "].map { Array($0.utf8) }

    mutating func note(_ title: String, path: String) {
        let folder = Self.folder(of: path)
        pages[folder, default: 0] += 1
        for part in Set(Self.parts(of: title).map(Self.key)) { parts[folder, default: [:]][part, default: 0] += 1 }
    }

    /// `title` without the parts that name the site; whole when nothing else would be left.
    func indexed(_ title: String, path: String) -> String {
        let folder = Self.folder(of: path)
        guard let count = pages[folder], count >= 3, let common = parts[folder] else { return title }
        let all = Self.parts(of: title)
        let own = all.filter { common[Self.key($0), default: 0] * 2 < count }
        return own.isEmpty || own.count == all.count ? title : own.joined(separator: " ")
    }

    /// A part's `StableHash` over the UTF-8 of its NFC form: parts that are equal Strings
    /// (canonically equivalent) have the same key.
    private static func key(_ part: Substring) -> UInt64 {
        var hash = StableHash()
        if part.utf8.allSatisfy({ $0 < 0x80 }) {
            hash.add(part.utf8)
        } else {
            hash.add(String(part).precomposedStringWithCanonicalMapping.utf8)
        }
        return hash.value
    }

    private static func folder(of path: String) -> Substring {
        path.lastIndex(of: "/").map { path[..<$0] } ?? ""
    }

    /// The title cut at its separators, each part trimmed.
    static func parts(of title: String) -> [Substring] {
        let bytes = Array(title.utf8)
        var parts: [Substring] = []
        var start = 0
        var index = 0
        func part(_ range: Range<Int>) -> Substring {
            Substring(String(decoding: bytes[range], as: UTF8.self)).trimmingASCIIWhitespace()
        }
        while index < bytes.count {
            if let separator = separators.first(where: { bytes[index...].starts(with: $0) }) {
                parts.append(part(start..<index))
                index += separator.count
                start = index
            } else {
                index += 1
            }
        }
        parts.append(part(start..<bytes.count))
        return parts.filter { !$0.isEmpty }
    }
}
