import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix

/// A connection that could not be made, in plain words (`connection refused`, `no such host`)
/// with the system's error number kept, instead of the descriptions of SwiftNIO's and
/// async-http-client's own types.
public struct ConnectionError: Error, CustomStringConvertible, Equatable {
    public let host: String
    public let port: Int
    /// Why, as a person would say it.
    public let reason: String
    /// The system's error number (`errno`), or the resolver's (`getaddrinfo`), when there is one.
    public let code: Int?

    public var description: String { reason }

    /// `error` in plain words when it is a failure to connect to `url`'s server, else nil.
    init?(_ error: any Error, url: String) {
        let components = URLComponents(string: url)
        let host = components?.host ?? ""
        let port = components?.port ?? (components?.scheme == "https" ? 443 : 80)
        switch error {
        case let error as IOError:
            self.init(host: host, port: port, reason: String(cString: strerror(error.errnoCode)).lowercased(), code: Int(error.errnoCode))
        case let error as SocketAddressError.UnknownHost:
            let reason =
                error.errorCode == Int(EAI_NONAME)
                ? "no such host"
                : "the host name could not be looked up (\(error.errorDescription.lowercased()))"
            self.init(host: error.host, port: error.port, reason: reason, code: error.errorCode)
        case let error as NIOConnectionError:
            if let attempt = error.connectionErrors.first, let plain = ConnectionError(attempt.error, url: url) {
                self = plain
            } else if let lookup = error.dnsAError ?? error.dnsAAAAError {
                self = ConnectionError(lookup, url: url) ?? ConnectionError(host: host, port: port, reason: "no such host", code: nil)
            } else {
                return nil
            }
        case let error as HTTPClientError where error == .connectTimeout:
            self.init(host: host, port: port, reason: "no connection within the connect timeout", code: nil)
        default:
            return nil
        }
    }

    init(host: String, port: Int, reason: String, code: Int?) {
        self.host = host
        self.port = port
        self.reason = reason
        self.code = code
    }
}
