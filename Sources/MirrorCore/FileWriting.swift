#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one loop that writes a buffer to a file descriptor with plain system calls, for the
/// cache's bodies, the offline folder's files and a bundle's extracted files.
public enum FileWriting {
    /// Writes all of `bytes`, going on after partial and interrupted writes.
    /// - Returns: nil once all is written; the `errno` of the write that failed otherwise.
    public static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += written
        }
        return nil
    }
}
