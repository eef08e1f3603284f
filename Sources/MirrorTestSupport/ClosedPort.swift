import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback port that refuses every connection for as long as it is held: a TCP socket bound
/// to it that never listens. A port freed by a stopped server is no such thing — the system may
/// hand it to the next server any test starts, which then answers in its place.
public enum ClosedPort {
    /// Runs `body` with the held port's number, and frees the port when `body` ends.
    public static func with<Result>(_ body: (Int) async throws -> Result) async throws -> Result {
        let descriptor = socket(AF_INET, streamSocket, 0)
        guard descriptor >= 0 else { throw RawHTTPConnection.Failure("socket: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw RawHTTPConnection.Failure("bind: \(String(cString: strerror(errno)))") }
        return try await body(Int(UInt16(bigEndian: address.sin_port)))
    }
}
