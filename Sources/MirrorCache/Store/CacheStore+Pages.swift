extension CacheStore {
    /// At most `limit` entries after `entry` in URL order (from the first when nil): reads a
    /// cache of any size a page at a time, where `allEntries()` would hold every entry at once.
    public func entries(after entry: CacheEntry?, limit: Int) throws -> [CacheEntry] {
        try withIndex(flushingAccess: true) { try $0.entries(after: entry.map { ($0.url, $0.id) }, limit: limit) }
    }

    /// The digests of the bodies that more than one entry uses (identical responses).
    public func sharedBodyDigests() throws -> Set<String> {
        try withIndex { Set(try $0.sharedDigests()) }
    }
}
