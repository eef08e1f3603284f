import ArgumentParser
import Foundation
import MirrorHTTP

/// `--ca-certificate FILE` and `--no-check-certificate`, shared by every command that fetches.
struct TLSOptions: ParsableArguments {
    @Option(
        name: .customLong("ca-certificate"),
        help: ArgumentHelp(
            "Also trust the certificate authorities in this PEM file.",
            discussion: "Added to the system's trust store, which SSL_CERT_FILE (else SSL_CERT_DIR) replaces when set.",
            valueName: "FILE"))
    var caCertificates: [String] = []

    @Flag(help: "Do not check HTTPS certificates (insecure: anyone on the way can read and change what is saved).")
    var noCheckCertificate = false

    /// The transport's trust, from these options and the environment; warns once when checks are off.
    func security(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> TransportSecurity {
        if noCheckCertificate {
            MirrorCommand.printError(
                "mirror: warning: --no-check-certificate: HTTPS certificates are not checked; "
                    + "anyone between you and the servers can read and change what is saved")
        }
        do {
            return try TransportSecurity(
                caCertificateFiles: caCertificates, verifiesCertificates: !noCheckCertificate,
                environment: environment)
        } catch let failure as TransportSecurity.Failure {
            throw CommandFailure(failure.message, status: .usage)
        }
    }
}
