/// Why the server could not start. A struct with a code, not an enum, so that a new reason is
/// not a breaking change for callers that switch over it.
public struct HTTPServerError: Error, Hashable, CustomStringConvertible {
    private enum Code: Hashable { case noLocalAddress }

    private let code: Code
    /// The address the server was asked to listen on.
    public let host: String

    /// The socket was bound but reports no address to connect to.
    public static func noLocalAddress(host: String) -> HTTPServerError { HTTPServerError(code: .noLocalAddress, host: host) }

    public var description: String {
        switch code {
        case .noLocalAddress: "the server bound to \(host) has no address"
        }
    }
}
