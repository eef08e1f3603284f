import Synchronization

/// A bounded in-memory copy of small, hot, already-verified bodies, keyed by digest.
/// When it grows past its capacity the least recently used half is dropped.
final class MemoryTier: Sendable {
    private struct State {
        var bodies: [String: (bytes: [UInt8], lastUse: UInt64)] = [:]
        var total = 0
        var clock: UInt64 = 0
    }

    /// Bodies larger than this are never kept in memory.
    let maxBodySize: Int
    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int, maxBodySize: Int) {
        self.capacity = capacity
        self.maxBodySize = maxBodySize
    }

    func get(_ digest: String) -> [UInt8]? {
        state.withLock { state in
            guard let found = state.bodies[digest] else { return nil }
            state.clock += 1
            state.bodies[digest] = (found.bytes, state.clock)
            return found.bytes
        }
    }

    func put(_ digest: String, _ bytes: [UInt8]) {
        guard bytes.count <= maxBodySize, capacity > 0 else { return }
        state.withLock { state in
            state.clock += 1
            if let old = state.bodies.updateValue((bytes, state.clock), forKey: digest) { state.total -= old.bytes.count }
            state.total += bytes.count
            guard state.total > capacity else { return }
            let byAge = state.bodies.sorted { $0.value.lastUse < $1.value.lastUse }
            for (key, value) in byAge where state.total > capacity / 2 {
                state.bodies[key] = nil
                state.total -= value.bytes.count
            }
        }
    }

    func remove(_ digest: String) {
        state.withLock { state in
            if let old = state.bodies.removeValue(forKey: digest) { state.total -= old.bytes.count }
        }
    }

    func removeAll() {
        state.withLock { $0 = State() }
    }
}
