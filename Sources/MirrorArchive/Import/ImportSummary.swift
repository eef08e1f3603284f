/// What `mirror cache import` did with a WARC or WACZ.
public struct ImportSummary: Sendable, Codable {
    /// Records read.
    public var records = 0
    /// Responses stored in the cache, from `response` and `revisit` records.
    public var imported = 0
    /// Stored responses whose headers a `304` or a server-not-modified revisit refreshed.
    public var updated = 0
    /// `request` records read (they give the Vary keys).
    public var requests = 0
    /// Records not used, counted by reason.
    public var skipped: [String: Int] = [:]
    /// Why reading stopped before the end (records before it stay imported), if it did.
    public var error: String?

    mutating func skip(_ reason: String) {
        skipped[reason, default: 0] += 1
    }
}
