/// The kept originals (`.mirror/originals/<sha256>`) that rewritten files need, by the first 8
/// bytes of their digest, in a sorted array: 8 bytes per page at the crawl's peak of memory, where
/// whole digests took 40 and a set of them 160. Two digests alike in their first 64 bits would
/// keep an unneeded original (a file too many, never one too few). A digest that is not one (a
/// damaged manifest's) is kept as its text.
struct UsedOriginals {
    private var prefixes: [UInt64] = []
    private var sorted = true
    private var others: Set<String> = []

    /// An original with this digest (lower-case hex) is needed.
    mutating func note(_ sha256: String) {
        guard sha256.utf8.count == 64, let prefix = Self.prefix(of: sha256) else {
            others.insert(sha256)
            return
        }
        if let last = prefixes.last, last > prefix { sorted = false }
        prefixes.append(prefix)
    }

    /// Sorts what was noted, for `contains`.
    mutating func sort() {
        if !sorted { prefixes.sort() }
        sorted = true
    }

    /// Whether the original named `name` may be needed (after `sort`).
    func contains(_ name: String) -> Bool {
        guard name.utf8.count == 64, let prefix = Self.prefix(of: name) else { return others.contains(name) }
        var (low, high) = (0, prefixes.count)
        while low < high {
            let middle = (low + high) / 2
            if prefixes[middle] < prefix { low = middle + 1 } else { high = middle }
        }
        return low < prefixes.count && prefixes[low] == prefix
    }

    /// The digest's first 16 hex digits as a number; nil when they are not lower-case hex.
    private static func prefix(of sha256: String) -> UInt64? {
        var value: UInt64 = 0
        var count = 0
        for byte in sha256.utf8.prefix(16) {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            default: return nil
            }
            value = value << 4 | UInt64(digit)
            count += 1
        }
        return count == 16 ? value : nil
    }
}
