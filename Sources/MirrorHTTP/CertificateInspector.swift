import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import X509

/// Turns NIOSSL's certificate verification failures into a `CertificateError` that says why.
///
/// BoringSSL reports every refused chain as `CERTIFICATE_VERIFY_FAILED`; the reason (an unknown
/// issuer, an expired certificate) is read from the certificates the server presents, fetched by
/// a second handshake that records them and then refuses them, so no request is ever sent on it.
enum CertificateInspector {
    /// What NIOSSL refused.
    enum Failure {
        /// The chain: not signed by a trusted authority, or out of its validity period.
        case chain
        /// The host name: the certificate names other hosts.
        case hostname

        init?(_ error: any Error) {
            if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
                self = .hostname
            } else if case NIOSSLError.handshakeFailed(.sslError(let stack)) = error,
                stack.contains(where: { "\($0)".contains("CERTIFICATE_VERIFY_FAILED") })
            {
                self = .chain
            } else {
                return nil
            }
        }
    }

    /// A `CertificateError` when `error` is a certificate verification failure for `url`, else `error` itself.
    static func explain(_ error: any Error, url: String, timeout: Duration) async -> any Error {
        guard let failure = Failure(error), let components = URLComponents(string: url), let host = components.host else {
            return error
        }
        let port = components.port ?? 443
        let chain = await presentedChain(host: host, port: port, timeout: timeout)
        return CertificateError(host: host, port: port, problem: problem(failure, chain: chain, now: Date()))
    }

    /// Why `chain` (leaf first) was refused.
    static func problem(_ failure: Failure, chain: [Certificate], now: Date) -> CertificateError.Problem {
        switch failure {
        case .hostname:
            return .wrongName(names: chain.first.map(names(of:)) ?? [])
        case .chain:
            if let expired = chain.first(where: { $0.notValidAfter < now }) { return .expired(on: expired.notValidAfter) }
            if let early = chain.first(where: { $0.notValidBefore > now }) { return .notYetValid(until: early.notValidBefore) }
            return .untrusted(issuer: chain.last.map { "\($0.issuer)" })
        }
    }

    /// The host names and addresses a certificate is for: its subject alternative names, else its subject.
    static func names(of certificate: Certificate) -> [String] {
        let alternatives = (try? certificate.extensions.subjectAlternativeNames).map { Array($0) } ?? []
        let names = alternatives.compactMap { name -> String? in
            switch name {
            case .dnsName(let dns): return dns
            case .ipAddress(let address) where address.bytes.count == 4:
                return address.bytes.map(String.init).joined(separator: ".")
            case .ipAddress(let address) where address.bytes.count == 16:
                let bytes = Array(address.bytes)
                return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
                    .joined(separator: ":")
            default: return nil
            }
        }
        return names.isEmpty ? ["\(certificate.subject)"] : names
    }

    /// The certificates `host:port` presents (leaf first), or none when it cannot be reached in time.
    static func presentedChain(host: String, port: Int, timeout: Duration) async -> [Certificate] {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates([])
        guard let context = try? NIOSSLContext(configuration: configuration) else { return [] }
        let isAddress = (try? SocketAddress(ipAddress: host, port: port)) != nil
        let presented = NIOLockedValueBox<[NIOSSLCertificate]>([])
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(TimeAmount(timeout))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handler = try NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : host) {
                        certificates, verdict in
                        presented.withLockedValue { $0 = certificates }
                        verdict.succeed(NIOSSLVerificationResult.failed)
                    }
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
            }
        guard let channel = try? await bootstrap.connect(host: host, port: port).get() else { return [] }
        let deadline = channel.eventLoop.scheduleTask(in: TimeAmount(timeout)) {
            channel.close(promise: nil)
        }
        try? await channel.closeFuture.get()
        deadline.cancel()
        return presented.withLockedValue { $0 }.compactMap { try? Certificate(derEncoded: $0.toDERBytes()) }
    }
}
