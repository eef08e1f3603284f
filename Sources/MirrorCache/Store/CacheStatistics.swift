/// Counts and sizes of a cache folder, for `mirror cache stats`.
public struct CacheStatistics: Sendable, Codable, Equatable {
    public var entries: Int
    public var bodies: Int
    /// Bytes of distinct bodies on disk (identical bodies are stored once).
    public var bodyBytes: Int
    public var capacityBytes: Int
    public var directory: String
}

/// What `verify` found and, with repair, fixed.
public struct VerifyReport: Sendable, Codable, Equatable {
    public var entriesChecked = 0
    public var bodiesChecked = 0
    /// Entries whose body file is missing.
    public var missingBodies: [String] = []
    /// Entries whose body does not match its digest.
    public var damagedBodies: [String] = []
    /// Body files no entry refers to.
    public var orphanFiles = 0
    /// Problems SQLite itself reported, or "index unreadable".
    public var indexProblems: [String] = []
    /// Entries recovered from the entry log when the index was rebuilt.
    public var rebuiltEntries = 0
    public var repaired = false

    public var isHealthy: Bool { missingBodies.isEmpty && damagedBodies.isEmpty && indexProblems.isEmpty }
}
