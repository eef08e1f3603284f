public import NIOSSL

/// Decrypts what a client sends through `CONNECT` (`mirror proxy --mitm`): the server answers the
/// TLS handshake with a certificate for the host, then reads the requests inside like any other.
public protocol TunnelInterceptor: Sendable {
    /// The TLS server context presenting a certificate for `host`.
    func serverContext(forHost host: String) throws -> NIOSSLContext
}
