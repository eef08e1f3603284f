import Crypto
public import Foundation
import X509

/// A certificate authority made in the test, for HTTPS origins: it issues server certificates
/// (valid, expired, or for other names) and writes its own certificate as PEM for
/// `--ca-certificate` or `SSL_CERT_FILE`.
///
///     let authority = try TestCertificateAuthority()
///     let origin = try await TestOrigin.start(tls: try authority.serverIdentity())
///     ... crawl origin.url("/") trusting authority.certificateFile() ...
public struct TestCertificateAuthority: Sendable {
    public let name: String
    private let key: P256.Signing.PrivateKey
    private let certificate: Certificate

    public init(name: String = "mirror test CA") throws {
        self.name = name
        key = P256.Signing.PrivateKey()
        let subject = try DistinguishedName { CommonName(name) }
        certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
            notValidBefore: Date() - 3600, notValidAfter: Date() + 86400 * 30,
            issuer: subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: .init(key))
    }

    /// This authority's certificate, PEM-encoded.
    public func certificatePEM() throws -> String {
        try certificate.serializeAsPEM().pemString
    }

    /// Writes this authority's certificate as PEM to a new temporary file and returns its path.
    public func certificateFile() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("test-ca-\(UUID().uuidString).pem").path
        try certificatePEM().write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Writes the certificate file as `certificateFile()` does, runs `body` with its path, and removes
    /// the file afterwards, also when `body` throws (its error is rethrown then).
    public func withCertificateFile<T>(
        isolation: isolated (any Actor)? = #isolation, _ body: (String) async throws -> T
    ) async throws -> T {
        let path = try certificateFile()
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try await body(path)
    }

    /// A server certificate and key signed by this authority.
    /// - Parameters:
    ///   - names: host names and IPv4 addresses the certificate is for.
    ///   - validity: when it is valid; the default is an hour ago to a day from now.
    public func serverIdentity(
        names: [String] = ["127.0.0.1", "localhost"],
        validity: ClosedRange<Date> = Date() - 3600...Date() + 86400
    ) throws -> TestTLSIdentity {
        let serverKey = P256.Signing.PrivateKey()
        let alternativeNames = names.map { name -> GeneralName in
            let octets = name.split(separator: ".").compactMap { UInt8($0) }
            return octets.count == 4 ? .ipAddress(.init(contentBytes: ArraySlice(octets))) : .dnsName(name)
        }
        let leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(serverKey.publicKey),
            notValidBefore: validity.lowerBound, notValidAfter: validity.upperBound,
            issuer: certificate.subject, subject: try DistinguishedName { CommonName(names.first ?? "server") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(alternativeNames)
            },
            issuerPrivateKey: .init(key))
        return try TestTLSIdentity(certificatePEM: leaf.serializeAsPEM().pemString, privateKeyPEM: serverKey.pemRepresentation)
    }
}
