/// How the cache answers, on top of RFC 9111.
public enum CacheMode: Sendable, Equatable {
    /// RFC 9111 semantics: fresh responses are reused, stale ones validated.
    case standard
    /// The old "cache time": a stored response younger than this many seconds is used
    /// without asking the origin, whatever its headers say; older ones follow `standard`.
    case maxAge(Double)
    /// Never touch the network (only-if-cached): any stored response is used; a miss is reported.
    case offline
    /// Revalidate every stored response with the origin before using it.
    case refresh
    /// Never use a stored response, nor its validators: fetch anew and store what comes
    /// (URLRequest's `reloadIgnoringLocalCacheData`).
    case reload
    /// Neither read nor write the cache: every request goes to the network as it is (a
    /// program's `passthrough`).
    case bypass
}
