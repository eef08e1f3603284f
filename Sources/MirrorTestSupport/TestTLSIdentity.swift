public import NIOSSL

/// What an HTTPS `TestOrigin` presents: a certificate and its private key, from a `TestCertificateAuthority`.
public struct TestTLSIdentity: Sendable {
    /// The TLS server context presenting the certificate.
    public let context: NIOSSLContext

    init(certificatePEM: String, privateKeyPEM: String) throws {
        let certificate = try NIOSSLCertificate(bytes: Array(certificatePEM.utf8), format: .pem)
        let key = try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem)
        context = try NIOSSLContext(
            configuration: .makeServerConfiguration(
                certificateChain: [.certificate(certificate)], privateKey: .privateKey(key)))
    }
}
