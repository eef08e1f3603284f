import MirrorLock

/// The connection lookups read the cache's index on, the entries it recently returned, and the
/// times entries were used, noted until they are written (`IndexWriter.touch`).
final class IndexReader: Sendable {
    private struct State {
        var connection: CacheIndex
        /// The entries of recently looked-up URLs, as the index has them: a hit then reads no
        /// row and decodes no headers. Emptied when a lookup of one finds that another
        /// connection has committed since (`CacheIndex.dataVersion`): the store's
        /// `IndexWriter`, or another process.
        var known: [String: [CacheEntry]] = [:]
        var knownVersion: Int64 = -1
        var pendingAccess: [String: Double] = [:]
        var lastFlush: Double
    }

    /// URLs in `State.known` at most (it is emptied when full).
    private static let knownLimit = 4096

    private let state: Locked<State>
    /// The store's clock (`CacheStore.Configuration.now`).
    private let now: @Sendable () -> Double

    init(connection: CacheIndex, now: @escaping @Sendable () -> Double) {
        self.now = now
        state = Locked(State(connection: connection, lastFlush: now()))
    }

    /// Every committed entry of `url`.
    ///
    /// Only a remembered URL asks whether the index changed: every remembered lookup was read
    /// after `knownVersion` was, so while that is unchanged, nothing committed since any of
    /// them. A URL not remembered is read as it is now (a crawl's lookups are nearly all such).
    func entries(url: String) throws -> [CacheEntry] {
        try state.withLock { state in
            if let entries = state.known[url] {
                let version = try state.connection.dataVersion()
                if version == state.knownVersion { return entries }
                state.known.removeAll(keepingCapacity: true)
                state.knownVersion = version
            }
            let entries = try state.connection.entries(url: url)
            if state.known.count >= Self.knownLimit { state.known.removeAll(keepingCapacity: true) }
            state.known[url] = entries
            return entries
        }
    }

    /// Notes that `entry` was used at `time`; returns the access times noted so far when they are
    /// due to be written (two seconds after the last write, or 2,000 of them).
    func noteAccess(_ entry: CacheEntry, at time: Double) -> [String: Double]? {
        state.withLock { state -> [String: Double]? in
            state.pendingAccess[entry.id] = time
            if let known = state.known[entry.url], let position = known.firstIndex(where: { $0.id == entry.id }) {
                state.known[entry.url]![position].lastAccess = time
            }
            guard time - state.lastFlush > 2 || state.pendingAccess.count > 2000 else { return nil }
            return Self.takeAccess(&state, at: now())
        }
    }

    /// The access times noted since the last write; none when there are none.
    func takeAccess() -> [String: Double] {
        state.withLock { state in state.pendingAccess.isEmpty ? [:] : Self.takeAccess(&state, at: now()) }
    }

    /// Forgets the access times noted for `ids` (entries removed), or for every entry.
    func forgetAccess(_ ids: [String]? = nil) {
        state.withLock { state in
            guard let ids else { return state.pendingAccess.removeAll() }
            for id in ids { state.pendingAccess[id] = nil }
        }
    }

    private static func takeAccess(_ state: inout State, at time: Double) -> [String: Double] {
        let pending = state.pendingAccess
        state.pendingAccess.removeAll(keepingCapacity: true)
        state.lastFlush = time
        return pending
    }
}
