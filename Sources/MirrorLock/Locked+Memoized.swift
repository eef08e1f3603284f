extension Locked {
    /// The element the dictionary this lock guards keeps for `key`, or else `make`'s, made with
    /// the lock let go and then kept; the dictionary is emptied when it holds `limit` already.
    /// For values made again and again from a few keys (a crawl's hosts, its responses' dates).
    public func memoized<Key: Hashable & Sendable, Element: Sendable>(
        _ key: Key, limit: Int, _ make: () -> Element
    ) -> Element where Value == [Key: Element] {
        if let known = withLock({ $0[key] }) { return known }
        let made = make()
        withLock { known in
            if known.count >= limit { known.removeAll(keepingCapacity: true) }
            known[key] = made
        }
        return made
    }
}
