import Foundation

extension CacheStore {
    public struct Configuration: Sendable {
        /// Disk capacity for bodies; eviction starts above `highWatermark` of it.
        public var diskCapacity: Int = 4 << 30
        public var highWatermark = 0.95
        /// Eviction stops below this fraction of the capacity.
        public var lowWatermark = 0.90
        /// Memory for small hot bodies.
        public var memoryCapacity: Int = 32 << 20
        /// Bodies up to this size are kept in memory after a read.
        public var memoryMaxBodySize: Int = 256 << 10
        /// The clock, in seconds since the epoch (tests move it).
        public var now: @Sendable () -> Double = { Date().timeIntervalSince1970 }
        /// Commit index rows in groups instead of one transaction per entry (`eachEntry`). Until
        /// its group commits, an entry is seen by this store only; its metadata is in the store's
        /// `EntryLog`, from which the next store to open the folder indexes it if this one is killed.
        public var groupCommit = GroupCommit.eachEntry

        public init() {}

        /// How `mirror crawl` opens its cache (and `mirror-fetch-bench`, which times a crawl's
        /// parts). A crawl reads each body right after storing it and rarely again: a small
        /// memory tier serves that, and a larger one would only add to its footprint. Its index
        /// rows commit in groups (a transaction per response was an eighth of a crawl's CPU time
        /// on small pages); after a kill, the next open indexes the rest from its entry log.
        public static var crawl: Configuration {
            var configuration = Configuration()
            configuration.memoryCapacity = 2 << 20
            configuration.groupCommit = GroupCommit()
            return configuration
        }
    }

    /// How large or old a group of entries may grow before its rows commit.
    ///
    /// The index's B-trees take each entry at a random place (ids, URLs and digests), so a small
    /// group dirties a page of each tree per entry, and every dirty page is written to the WAL and
    /// copied back at a checkpoint. A group large against the trees shares their pages
    /// (BENCHMARKS.md, "SQLite's file I/O at 100,000 pages").
    public struct GroupCommit: Sendable {
        public var entries: Int
        /// The size of the group's entry-log records (a hostile server's large headers fill a
        /// group sooner, so a group's memory stays bounded).
        public var bytes: Int
        public var age: Duration

        public init(entries: Int = 4096, bytes: Int = 4 << 20, age: Duration = .seconds(1)) {
            self.entries = entries
            self.bytes = bytes
            self.age = age
        }

        /// Every entry's row commits as it is stored.
        public static let eachEntry = GroupCommit(entries: 1, age: .zero)
    }

}
