/// Entries stored but not yet committed to the index, when the store commits in groups
/// (`CacheStore.Configuration.groupCommit`): their bodies are in place and their metadata in the entry log, and
/// the group's rows commit in one transaction. Lookups of their URLs commit the group first.
struct PendingEntries {
    /// In the order they were stored.
    private(set) var entries: [CacheEntry] = []
    private var urls: Set<String> = []
    private var oldest: ContinuousClock.Instant?

    var isEmpty: Bool { entries.isEmpty }

    func contains(url: String) -> Bool { urls.contains(url) }

    /// Adds an entry; true when the group is now due to commit.
    mutating func add(_ entry: CacheEntry, limits: CacheStore.GroupCommit) -> Bool {
        let now = ContinuousClock.now
        if oldest == nil { oldest = now }
        entries.append(entry)
        urls.insert(entry.url)
        return entries.count >= limits.entries || now - oldest! >= limits.age
    }

    /// Empties the group once its rows have committed.
    mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
        urls.removeAll(keepingCapacity: true)
        oldest = nil
    }
}
