import MirrorCore

/// `PathRegistry`'s tables: each URL's path, and each file (path) with its preferred path, body
/// and URLs in the order they joined it. One entry per URL in a chunked array, found through two
/// open-addressing indexes of 8-byte slots (by URL and by path); the entries of one file are
/// chained: 8 bytes a URL per index instead of a dictionary's bucket of 24 or 32, and no object
/// per file (about 17 MB at 100,000 URLs).
struct FileTable: Sendable {
    /// A file as the registry sees it.
    struct File {
        let preferred: String
        let sha256: HexDigest
        let urls: [String]

        var firstURL: String { urls[0] }
    }

    private struct Entry {
        var url: String
        var path: String
        var preferred: String
        var sha256: HexDigest
        /// The next entry of the same file; -1 for none.
        var next: Int32
    }

    private var entries = ChunkedArray<Entry>()
    /// Entries removed, for reuse.
    private var free: [Int32] = []
    private var byURL = SlotIndex()
    /// The first entry of each file.
    private var byPath = SlotIndex()

    /// The path of `url`'s file.
    func path(of url: String) -> String? { entry(ofURL: url).map { entries[Int($0)].path } }

    /// The file at `path`.
    func file(at path: String) -> File? {
        guard let first = entry(atPath: path) else { return nil }
        var urls: [String] = []
        var current = first
        while current >= 0 {
            urls.append(entries[Int(current)].url)
            current = entries[Int(current)].next
        }
        let entry = entries[Int(first)]
        return File(preferred: entry.preferred, sha256: entry.sha256, urls: urls)
    }

    /// Every URL with a path.
    var urls: some Sequence<String> { byURL.entries.lazy.map { entries[Int($0)].url } }

    /// Every file's path.
    var paths: [String] { byPath.entries.map { entries[Int($0)].path } }

    /// Puts `url` in the file at `path`, made with this preferred path and body if there is none
    /// (its URLs joined it, so they have the same). `url` must have no path yet, or this one.
    mutating func add(url: String, path: String, preferred: String, sha256: HexDigest) {
        if let existing = entry(ofURL: url) {
            precondition(entries[Int(existing)].path == path, "a URL is in one file at a time")
            return
        }
        let first = entry(atPath: path)
        let added = store(
            Entry(
                url: url, path: path, preferred: first.map { entries[Int($0)].preferred } ?? preferred,
                sha256: first.map { entries[Int($0)].sha256 } ?? sha256, next: -1))
        byURL.insert(added, hash: Self.hash(url)) { Self.hash(entries[Int($0)].url) }
        if var last = first {
            while entries[Int(last)].next >= 0 { last = entries[Int(last)].next }
            entries[Int(last)].next = added
        } else {
            byPath.insert(added, hash: Self.hash(path)) { Self.hash(entries[Int($0)].path) }
        }
    }

    /// Takes `url` out of its file; returns that file's path and, when it was the last URL,
    /// the file as it was.
    mutating func remove(url: String) -> (path: String, emptied: File?)? {
        guard let removed = entry(ofURL: url) else { return nil }
        let entry = entries[Int(removed)]
        let emptied = file(at: entry.path).flatMap { $0.urls.count == 1 ? $0 : nil }
        byURL.remove(removed, hash: Self.hash(url))
        let first = self.entry(atPath: entry.path)!
        if first == removed {
            byPath.remove(removed, hash: Self.hash(entry.path))
            if entry.next >= 0 { byPath.insert(entry.next, hash: Self.hash(entry.path)) { Self.hash(entries[Int($0)].path) } }
        } else {
            var previous = first
            while entries[Int(previous)].next != removed { previous = entries[Int(previous)].next }
            entries[Int(previous)].next = entry.next
        }
        entries[Int(removed)] = Entry(url: "", path: "", preferred: "", sha256: HexDigest(""), next: -1)
        free.append(removed)
        return (entry.path, emptied)
    }

    /// The file at `path` now holds the body `sha256`.
    mutating func setBody(at path: String, to sha256: HexDigest) {
        var current = entry(atPath: path) ?? -1
        while current >= 0 {
            entries[Int(current)].sha256 = sha256
            current = entries[Int(current)].next
        }
    }

    private mutating func store(_ entry: Entry) -> Int32 {
        if let reused = free.popLast() {
            entries[Int(reused)] = entry
            return reused
        }
        entries.append(entry)
        return Int32(entries.endIndex - 1)
    }

    private func entry(ofURL url: String) -> Int32? {
        byURL.find(hash: Self.hash(url)) { entries[Int($0)].url == url }
    }

    private func entry(atPath path: String) -> Int32? {
        byPath.find(hash: Self.hash(path)) { entries[Int($0)].path == path }
    }

    private static func hash(_ key: String) -> Int { key.hashValue }
}

/// An open-addressing index of entry numbers, probed linearly, its slots at most three quarters
/// used: each slot holds an entry's number and 32 bits of its key's hash, so a probe compares
/// a key only when those match. Keys are held by the caller, who hands in their hashes.
private struct SlotIndex: Sendable {
    /// 0: empty; `removed`: a tombstone; else the hash's high 32 bits, then the entry + 1.
    private var slots: [UInt64] = Array(repeating: 0, count: 16)
    private var count = 0
    private var tombstones = 0
    private static let removed = UInt64.max

    /// The entries held, in slot order.
    var entries: [Int32] {
        slots.compactMap { $0 == 0 || $0 == Self.removed ? nil : Int32(truncatingIfNeeded: $0 & 0xFFFF_FFFF) - 1 }
    }

    func find(hash: Int, where matches: (Int32) -> Bool) -> Int32? {
        let mask = slots.count - 1
        let tag = Self.tag(hash)
        var index = hash & mask
        while true {
            let slot = slots[index]
            if slot == 0 { return nil }
            if slot != Self.removed, slot >> 32 == tag {
                let entry = Int32(truncatingIfNeeded: slot & 0xFFFF_FFFF) - 1
                if matches(entry) { return entry }
            }
            index = (index + 1) & mask
        }
    }

    /// Adds `entry` (not held yet); `hashOf` gives the hash of any entry held, for growing.
    mutating func insert(_ entry: Int32, hash: Int, hashOf: (Int32) -> Int) {
        if (count + tombstones + 1) * 4 > slots.count * 3 {
            let held = entries
            slots = Array(repeating: 0, count: count * 4 >= slots.count * 3 / 2 ? slots.count * 2 : slots.count)
            count = 0
            tombstones = 0
            for old in held { place(old, hash: hashOf(old)) }
        }
        place(entry, hash: hash)
    }

    private mutating func place(_ entry: Int32, hash: Int) {
        let mask = slots.count - 1
        var index = hash & mask
        while slots[index] != 0 && slots[index] != Self.removed { index = (index + 1) & mask }
        if slots[index] == Self.removed { tombstones -= 1 }
        slots[index] = Self.tag(hash) << 32 | UInt64(UInt32(entry + 1))
        count += 1
    }

    /// Removes `entry`, held with `hash`.
    mutating func remove(_ entry: Int32, hash: Int) {
        let mask = slots.count - 1
        let wanted = Self.tag(hash) << 32 | UInt64(UInt32(entry + 1))
        var index = hash & mask
        while slots[index] != wanted {
            precondition(slots[index] != 0, "the entry is held")
            index = (index + 1) & mask
        }
        slots[index] = Self.removed
        count -= 1
        tombstones += 1
    }

    private static func tag(_ hash: Int) -> UInt64 { UInt64(UInt(bitPattern: hash) >> 32) & 0xFFFF_FFFF }
}
