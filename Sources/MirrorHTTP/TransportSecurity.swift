import Foundation
import NIOSSL

/// Which HTTPS servers the transport trusts: the system's certificate authorities — or, as in
/// OpenSSL, those of `SSL_CERT_FILE` or `SSL_CERT_DIR` in their place — plus extra authorities
/// the user names; or any server at all when verification is off.
public struct TransportSecurity: Sendable {
    /// A PEM file, or a folder of hashed PEM files, that replaces the system's trust store.
    private var trustStore: String?
    /// Trusted in addition to the trust store (`--ca-certificate`).
    private var extraAuthorities: [NIOSSLCertificate] = []
    /// False when certificates are not checked at all (`--no-check-certificate`).
    public private(set) var verifiesCertificates = true

    /// The system's trust store, certificates verified.
    public init() {}

    /// - Parameters:
    ///   - caCertificateFiles: PEM files of certificate authorities to trust as well.
    ///   - verifiesCertificates: false accepts any certificate (insecure).
    ///   - environment: `SSL_CERT_FILE` or else `SSL_CERT_DIR`, when set, replaces the system's trust
    ///     store (NIOSSL takes one store: when both are set, the file, usually the same bundle, wins).
    /// - Throws: `TransportSecurity.Failure` naming a file that cannot be read or holds no certificate.
    public init(caCertificateFiles: [String], verifiesCertificates: Bool = true,
                environment: [String: String]) throws {
        self.verifiesCertificates = verifiesCertificates
        for path in caCertificateFiles { extraAuthorities += try Self.certificates(in: path) }
        if let file = environment["SSL_CERT_FILE"], !file.isEmpty {
            guard FileManager.default.isReadableFile(atPath: file) else {
                throw Failure(message: "SSL_CERT_FILE names \(file), which cannot be read")
            }
            trustStore = file
        } else if let directory = environment["SSL_CERT_DIR"], !directory.isEmpty {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw Failure(message: "SSL_CERT_DIR names \(directory), which is not a folder")
            }
            trustStore = directory
        }
        // Load the trust store now, so that a bad one is reported once, here, rather than by every request.
        do {
            _ = try NIOSSLContext(configuration: tlsConfiguration)
        } catch {
            throw Failure(message: "cannot load the trust store \(trustStore ?? "of the system"): \(error)")
        }
    }

    /// NIOSSL's client configuration for these choices.
    var tlsConfiguration: TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        guard verifiesCertificates else {
            configuration.certificateVerification = .none
            return configuration
        }
        if let trustStore { configuration.trustRoots = .file(trustStore) }
        if !extraAuthorities.isEmpty { configuration.additionalTrustRoots = [.certificates(extraAuthorities)] }
        return configuration
    }

    private static func certificates(in path: String) throws -> [NIOSSLCertificate] {
        guard let bytes = FileManager.default.contents(atPath: path) else {
            throw Failure(message: "cannot read the CA certificate \(path) (no such file, or not readable)")
        }
        guard let certificates = try? NIOSSLCertificate.fromPEMBytes(Array(bytes)), !certificates.isEmpty else {
            throw Failure(message: "\(path) holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
        return certificates
    }

    /// A trust file that cannot be used, in words that name it.
    public struct Failure: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }
}
