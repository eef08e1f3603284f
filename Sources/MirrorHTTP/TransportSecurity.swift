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
    /// Why the system's trust store, which these choices use, cannot be loaded (none installed).
    private var systemStoreProblem: String?

    /// The system's trust store, certificates verified.
    public init() {
        systemStoreProblem = Self.systemStore
    }

    /// - Parameters:
    ///   - caCertificateFiles: PEM files of certificate authorities to trust as well.
    ///   - verifiesCertificates: false accepts any certificate (insecure).
    ///   - environment: `SSL_CERT_FILE` or else `SSL_CERT_DIR`, when set, replaces the system's trust
    ///     store (NIOSSL takes one store: when both are set, the file, usually the same bundle, wins).
    /// - Throws: `TransportSecurity.Failure` naming a file that cannot be read or holds no certificate.
    public init(
        caCertificateFiles: [String], verifiesCertificates: Bool = true,
        environment: [String: String]
    ) throws {
        try self.init(
            caCertificateFiles: caCertificateFiles, verifiesCertificates: verifiesCertificates, environment: environment,
            systemStore: Self.systemStore)
    }

    /// - Parameter systemStore: why the system's trust store cannot be loaded, nil when it can
    ///   (tests stand in for a system without one).
    init(
        caCertificateFiles: [String], verifiesCertificates: Bool = true, environment: [String: String],
        systemStore: String?
    ) throws {
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
        if let trustStore {
            // A store the user named is loaded now, so that a bad one is reported once, here.
            do {
                _ = try NIOSSLContext(configuration: tlsConfiguration)
            } catch {
                throw Failure(message: "cannot load the trust store \(trustStore): \(error)")
            }
        } else if verifiesCertificates {
            // The system's may be missing (no ca-certificates): http needs none, and the
            // authorities --ca-certificate names are then trusted alone.
            systemStoreProblem = systemStore
        }
    }

    /// Why an https request cannot be made, nil when it can: the system has no trust store and no
    /// authority was named instead. Plain http works all the same.
    public var missingTrustStore: String? {
        extraAuthorities.isEmpty ? systemStoreProblem : nil
    }

    /// Why the system's trust store cannot be loaded, nil when it can; read once per process.
    private static let systemStore: String? = {
        do {
            _ = try NIOSSLContext(configuration: .makeClientConfiguration())
            return nil
        } catch {
            return "this system has no store of trusted certificate authorities (\(error)): install ca-certificates "
                + "(apt-get install ca-certificates), or give --ca-certificate FILE or SSL_CERT_FILE; http needs none"
        }
    }()

    /// NIOSSL's client configuration for these choices.
    var tlsConfiguration: TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        guard verifiesCertificates else {
            configuration.certificateVerification = .none
            return configuration
        }
        if let trustStore {
            configuration.trustRoots = .file(trustStore)
        } else if systemStoreProblem != nil {
            // No system store to load: the named authorities alone (none: https requests are refused before they start).
            configuration.trustRoots = .certificates(extraAuthorities)
            return configuration
        }
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
