#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A system call on a file or folder that failed: the path, and the system's reason.
public struct FileSystemError: Error, CustomStringConvertible {
    public let path: String
    public let code: Int32

    public init(path: String, code: Int32) {
        self.path = path
        self.code = code
    }

    /// The system's reason (`strerror`), without the path.
    public var message: String { String(cString: strerror(code)) }
    public var description: String { "\(path): \(message)" }
}
