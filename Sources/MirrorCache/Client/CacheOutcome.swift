/// How a response was obtained.
///
/// A struct, not an enum, so that the library can add outcomes without breaking a caller that
/// switches over them, and an application can name outcomes of its own (a response it brought
/// from elsewhere): compare with the outcomes handled, and have a `default`.
public struct CacheOutcome: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The outcome's name, as reports and logs write it.
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    /// Fresh stored response; the network was not used.
    public static let hit = CacheOutcome(rawValue: "hit")
    /// Stored response used past its freshness (max-stale, offline, or --max-age mode).
    public static let staleHit = CacheOutcome(rawValue: "staleHit")
    /// Stored response confirmed by a 304 from the origin.
    public static let revalidated = CacheOutcome(rawValue: "revalidated")
    /// Fetched from the origin (and stored when allowed).
    public static let miss = CacheOutcome(rawValue: "miss")
    /// Outside the admission rules or not cacheable by method: fetched, never stored.
    public static let bypass = CacheOutcome(rawValue: "bypass")
    /// Stored response used because the origin failed (stale-if-error).
    public static let staleOnError = CacheOutcome(rawValue: "staleOnError")
    /// Nothing usable is stored and the network may not be used (offline or only-if-cached): a 504.
    public static let offlineMiss = CacheOutcome(rawValue: "offlineMiss")
}
