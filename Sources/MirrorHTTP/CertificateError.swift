public import Foundation
public import MirrorCache

/// An HTTPS server whose certificate failed verification, in plain words with the option that
/// helps. Asking again cannot succeed, so callers that retry failed requests do not.
public struct CertificateError: PermanentTransportError, CustomStringConvertible, Equatable {
    /// Why the certificate was refused.
    public enum Problem: Sendable, Equatable {
        /// No authority in the trust store vouches for it; `issuer` names the one that signed the
        /// top of the chain the server sent, when known.
        case untrusted(issuer: String?)
        case expired(on: Date)
        case notYetValid(until: Date)
        /// It is for other hosts (`names`) than the one asked for.
        case wrongName(names: [String])
    }

    public let host: String
    public let port: Int
    public let problem: Problem

    public init(host: String, port: Int, problem: Problem) {
        self.host = host
        self.port = port
        self.problem = problem
    }

    /// `https://host:port`, as the user wrote it in a URL.
    public var origin: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == 443 ? "https://\(name)" : "https://\(name):\(port)"
    }

    public var description: String {
        let insecure = "--no-check-certificate (insecure)"
        switch problem {
        case .untrusted(let issuer):
            let who = issuer.map { "its issuer, \($0), is" } ?? "its issuer is"
            return "\(origin): the certificate is not trusted (\(who) not in the trust store); "
                + "pass --ca-certificate FILE with that authority's PEM certificate, or \(insecure)"
        case .expired(let date):
            return "\(origin): the certificate expired on \(Self.day(date)); the server must renew it, or pass \(insecure)"
        case .notYetValid(let date):
            return "\(origin): the certificate is not valid before \(Self.day(date)) (is this computer's clock right?); "
                + "or pass \(insecure)"
        case .wrongName(let names):
            let named = names.isEmpty ? "names no host" : "is for \(names.joined(separator: ", "))"
            return "\(origin): the certificate is for another name (it \(named), not \(host)); "
                + "use a URL with one of its names, or pass \(insecure)"
        }
    }

    private static func day(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day())
    }
}
