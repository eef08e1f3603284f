/// What a server does with each request: `mirror serve` answers from a mirror, `mirror proxy`
/// from its cache and the network.
public protocol HTTPResponder: Sendable {
    /// The response when it can be made at once without waiting (from memory, or a file the
    /// kernel will send); it is written on the connection's event loop, with no task to hop to.
    /// Nil: `respond(to:)` is called from a task.
    func respondImmediately(to request: ServerRequest) -> ServerResponse?
    func respond(to request: ServerRequest) async -> ServerResponse
}

extension HTTPResponder {
    public func respondImmediately(to request: ServerRequest) -> ServerResponse? { nil }
}
