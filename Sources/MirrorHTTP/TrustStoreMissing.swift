public import MirrorCache

/// An https request on a system with no store of trusted certificate authorities (Debian's
/// `ca-certificates` not installed) and none named: refused before it starts, in words that say
/// what to install. Plain http is not affected.
public struct TrustStoreMissing: PermanentTransportError, CustomStringConvertible, Equatable {
    public let url: String
    /// Why the system's store could not be loaded, and what helps.
    public let reason: String

    public var description: String { "\(url): \(reason)" }
}
