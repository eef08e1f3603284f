import MirrorCore

/// The kept originals (`.mirror/originals/<sha256>`) that rewritten files need, by the first 8
/// bytes of their digest, in a sorted array: 8 bytes per page at the crawl's peak of memory, where
/// whole digests took 40 and a set of them 160. Two digests alike in their first 64 bits would
/// keep an unneeded original (a file too many, never one too few). A digest that is not one (a
/// damaged manifest's) is kept as its text.
struct UsedOriginals {
    private var prefixes: [UInt64] = []
    private var others: Set<String> = []

    /// An original with this digest is needed.
    mutating func note(_ digest: HexDigest) {
        if let prefix = digest.leadingWord { prefixes.append(prefix) } else { others.insert(digest.text) }
    }

    /// Sorts what was noted, for `contains`.
    mutating func sort() { prefixes.sort() }

    /// Whether the original named `name` may be needed (after `sort`).
    func contains(_ name: String) -> Bool {
        let digest = HexDigest(name)
        guard let prefix = digest.leadingWord else { return others.contains(name) }
        var (low, high) = (0, prefixes.count)
        while low < high {
            let middle = (low + high) / 2
            if prefixes[middle] < prefix { low = middle + 1 } else { high = middle }
        }
        return low < prefixes.count && prefixes[low] == prefix
    }
}
