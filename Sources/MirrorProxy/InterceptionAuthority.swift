import Crypto
import Foundation
public import MirrorHTTPServer
import MirrorLock
public import NIOSSL
import X509

/// The local certificate authority of `mirror proxy --mitm`: created on first use in the cache
/// folder (its key readable by its owner only), it mints a certificate for each intercepted host.
/// Clients must trust its certificate; upstream certificates are still checked by the transport.
public final class InterceptionAuthority: TunnelInterceptor {
    /// The authority's certificate, PEM, for clients to trust.
    public let certificatePath: String
    private let key: P256.Signing.PrivateKey
    private let certificate: Certificate
    /// One key for every minted certificate: a new key per host would cost a key generation each.
    private let leafKey = P256.Signing.PrivateKey()
    private let contexts = Locked<[String: NIOSSLContext]>([:])

    /// Loads the authority from `cacheFolder/mitm/`, creating it the first time.
    public init(cacheFolder: String) throws {
        let folder = cacheFolder + "/mitm"
        certificatePath = folder + "/ca.pem"
        let keyPath = folder + "/ca-key.pem"
        let files = FileManager.default
        if files.fileExists(atPath: certificatePath), files.fileExists(atPath: keyPath) {
            key = try P256.Signing.PrivateKey(pemRepresentation: String(contentsOfFile: keyPath, encoding: .utf8))
            certificate = try Certificate(pemEncoded: String(contentsOfFile: certificatePath, encoding: .utf8))
            return
        }
        try files.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        key = P256.Signing.PrivateKey()
        let subject = try DistinguishedName {
            CommonName("mirror proxy local CA (\(ProcessInfo.processInfo.hostName))")
            OrganizationName("mirror")
        }
        certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
            notValidBefore: Date() - 86400, notValidAfter: Date() + 86400 * 3650,
            issuer: subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: .init(key))
        guard files.createFile(atPath: keyPath, contents: Data(key.pemRepresentation.utf8), attributes: [.posixPermissions: 0o600])
        else { throw Failure(message: "cannot write the CA key \(keyPath)") }
        try certificate.serializeAsPEM().pemString.write(toFile: certificatePath, atomically: true, encoding: .utf8)
    }

    /// Base64 SHA-256 of the authority's SubjectPublicKeyInfo, for Chromium's
    /// `--ignore-certificate-errors-spki-list`.
    public var spkiSHA256: String {
        Data(SHA256.hash(data: key.publicKey.derRepresentation)).base64EncodedString()
    }

    public func serverContext(forHost host: String) throws -> NIOSSLContext {
        if let context = contexts.withLock({ $0[host] }) { return context }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false).compactMap { UInt8($0) }
        let name: GeneralName = octets.count == 4 ? .ipAddress(.init(contentBytes: ArraySlice(octets))) : .dnsName(host)
        let leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(leafKey.publicKey),
            notValidBefore: Date() - 86400, notValidAfter: Date() + 86400 * 365,
            issuer: certificate.subject, subject: try DistinguishedName { CommonName(host) },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([name])
            },
            issuerPrivateKey: .init(key))
        // The authority's own certificate goes with the leaf: a client that trusts it by its key
        // alone (Chromium's --ignore-certificate-errors-spki-list) finds that key in the chain.
        let context = try NIOSSLContext(
            configuration: .makeServerConfiguration(
                certificateChain: [leaf, certificate].map {
                    .certificate(try NIOSSLCertificate(bytes: Array($0.serializeAsPEM().pemString.utf8), format: .pem))
                },
                privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(leafKey.pemRepresentation.utf8), format: .pem))))
        contexts.withLock { $0[host] = context }
        return context
    }

    /// A CA file that cannot be written, in words.
    public struct Failure: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }
}
