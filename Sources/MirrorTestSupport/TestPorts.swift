import Synchronization

/// The ports test origins listen on: each at most once per test process, below the kernel's
/// ephemeral range (32768 and up on Linux), where port 0 binds and clients' connections take
/// theirs.
///
/// With port 0, an origin often got the port of one a test before had just stopped, and a
/// client that outlived its test — a crawl still retrying, a browser asking for a favicon —
/// then reached the new origin with requests of the old test: counted there as fetches made
/// twice, or as two requests in flight to a host that allows one. Never reused, a stopped
/// origin's port refuses such requests instead.
public enum TestPorts {
    private static let range = 10_000..<32_000
    /// Where this process starts in `range`: two test processes at once seldom share ports.
    private static let start = Int.random(in: range)
    private static let taken = Atomic<Int>(0)

    /// A port no origin of this process has had (wrapping around after 22,000 origins).
    public static func take() -> Int {
        let offset = taken.add(1, ordering: .relaxed).oldValue
        return range.lowerBound + (start - range.lowerBound + offset) % range.count
    }
}
