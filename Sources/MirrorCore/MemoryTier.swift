import MirrorLock

/// A bounded in-memory copy of small, hot, already-verified bodies, keyed by a string (the
/// cache keys them by digest, a bundle archive by path). When it grows past its capacity, the
/// least recently used bodies are dropped until it holds 7/8 of it: most of the capacity stays
/// in use, and the sort that finds them runs once per eighth of the capacity stored.
public final class MemoryTier: Sendable {
    private struct State {
        var bodies: [String: (bytes: [UInt8], lastUse: UInt64)] = [:]
        var total = 0
        var clock: UInt64 = 0
    }

    /// Bodies larger than this are never kept in memory.
    public let maxBodySize: Int
    public let capacity: Int
    private let state = Locked(State())

    public init(capacity: Int, maxBodySize: Int) {
        self.capacity = capacity
        self.maxBodySize = maxBodySize
    }

    public func get(_ key: String) -> [UInt8]? {
        state.withLock { state in
            guard let found = state.bodies[key] else { return nil }
            state.clock += 1
            state.bodies[key] = (found.bytes, state.clock)
            return found.bytes
        }
    }

    public func put(_ key: String, _ bytes: [UInt8]) {
        guard bytes.count <= maxBodySize, capacity > 0 else { return }
        state.withLock { state in
            state.clock += 1
            if let old = state.bodies.updateValue((bytes, state.clock), forKey: key) { state.total -= old.bytes.count }
            state.total += bytes.count
            guard state.total > capacity else { return }
            let byAge = state.bodies.sorted { $0.value.lastUse < $1.value.lastUse }
            for (oldKey, value) in byAge where state.total > capacity - capacity / 8 {
                state.bodies[oldKey] = nil
                state.total -= value.bytes.count
            }
        }
    }

    public func remove(_ key: String) {
        state.withLock { state in
            if let old = state.bodies.removeValue(forKey: key) { state.total -= old.bytes.count }
        }
    }

    public func removeAll() {
        state.withLock { $0 = State() }
    }
}
