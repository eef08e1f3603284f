#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole-file reads with plain system calls, where asking first whether the file exists would
/// cost a second lookup of the name (in a folder of 100,000 kept originals, a measurable one).
public enum FileReading {
    /// The bytes of the file at `path`; nil when there is no such file.
    public static func contents(of path: String) throws(FileSystemError) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw FileSystemError(path: path, code: errno)
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw FileSystemError(path: path, code: errno) }
        // One byte more than its size, to see the end in the same read; more if it grows.
        var bytes = [UInt8](repeating: 0, count: max(Int(status.st_size), 0) + 1)
        var count = 0
        while true {
            if count == bytes.count { bytes += repeatElement(0, count: bytes.count) }
            let got = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + count, $0.count - count) }
            if got < 0 {
                if errno == EINTR { continue }
                throw FileSystemError(path: path, code: errno)
            }
            if got == 0 { break }
            count += got
        }
        bytes.removeSubrange(count...)
        return bytes
    }
}
