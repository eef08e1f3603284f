/// Claims of a worker of a shared crawl waiting for its next release (or a short while) before
/// claiming again, by id.
struct ClaimWaiters {
    private var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
    private var nextID = 0

    /// An id for a new waiter: its timer wakes it by this id.
    mutating func newID() -> Int {
        defer { nextID += 1 }
        return nextID
    }

    mutating func wait(_ id: Int, _ continuation: CheckedContinuation<Void, Never>) {
        waiting[id] = continuation
    }

    mutating func wake(_ id: Int) {
        waiting.removeValue(forKey: id)?.resume()
    }

    mutating func wakeAll() {
        let woken = waiting.values
        waiting = [:]
        for continuation in woken { continuation.resume() }
    }
}
