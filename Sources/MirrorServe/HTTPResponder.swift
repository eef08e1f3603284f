/// What a server does with each request: `mirror serve` answers from a mirror, `mirror proxy`
/// from its cache and the network.
public protocol HTTPResponder: Sendable {
    func respond(to request: ServerRequest) async -> ServerResponse
}
