/// What to do with a stored response that matches a request (RFC 9111 §4).
public enum ReuseDecision: Sendable, Equatable {
    /// Serve it without contacting the origin; `stale` when served past its freshness
    /// (allowed by max-stale, the mode, or an error).
    case serve(age: Double, stale: Bool)
    /// Serve it stale now, within its `stale-while-revalidate` window (RFC 5861), and validate
    /// it in the background for the requests that follow.
    case serveWhileRevalidating(age: Double)
    /// Ask the origin with a conditional request first.
    case validate
    /// The request said only-if-cached but the stored response may not be used: answer 504.
    case unsatisfiable
}
