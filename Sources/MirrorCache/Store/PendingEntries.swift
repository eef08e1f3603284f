import MirrorCore

/// Entries stored but not yet committed to the index, when the store commits in groups
/// (`CacheStore.Configuration.groupCommit`): their bodies are in place and their metadata in the entry log, and
/// the group's rows commit in one transaction. Lookups of their URLs commit the group first.
/// Times are the store's clock (`CacheStore.Configuration.now`), in seconds.
struct PendingEntries {
    /// In the order they were stored.
    private(set) var entries: [CacheEntry] = []
    private var urls: Set<String> = []
    /// The size of their entry-log records.
    private var bytes = 0
    private var oldest: Double?

    var isEmpty: Bool { entries.isEmpty }

    func contains(url: String) -> Bool { urls.contains(url) }

    /// Adds an entry stored at `time`, whose entry-log record is `bytes` long; true when the
    /// group is now due to commit.
    mutating func add(_ entry: CacheEntry, bytes: Int, at time: Double, limits: CacheStore.GroupCommit) -> Bool {
        if oldest == nil { oldest = time }
        entries.append(entry)
        urls.insert(entry.url)
        self.bytes += bytes
        return isDue(limits, at: time)
    }

    /// Whether the group is large or old enough at `time` to commit.
    func isDue(_ limits: CacheStore.GroupCommit, at time: Double) -> Bool {
        guard let oldest else { return false }
        return entries.count >= limits.entries || bytes >= limits.bytes || time - oldest >= limits.age.seconds
    }

    /// Puts `earlier` (a group whose commit failed) back before these entries.
    mutating func prepend(_ earlier: PendingEntries) {
        entries = earlier.entries + entries
        urls.formUnion(earlier.urls)
        bytes += earlier.bytes
        oldest = [earlier.oldest, oldest].compactMap { $0 }.min()
    }

    /// Empties the group once its rows have committed.
    mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
        urls.removeAll(keepingCapacity: true)
        bytes = 0
        oldest = nil
    }
}
