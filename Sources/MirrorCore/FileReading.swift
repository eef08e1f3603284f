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
        // One byte more than its size, to see the end in the same read; in pieces after that
        // if it grows. Not zeroed first: the bytes are read over at once.
        let expected = max(Int(status.st_size), 0) + 1
        var failure: Int32?
        var bytes = [UInt8](unsafeUninitializedCapacity: expected) { buffer, count in
            failure = readAll(descriptor, into: buffer, count: &count)
        }
        if failure == nil && bytes.count == expected {
            var piece = [UInt8](repeating: 0, count: 1 << 16)
            while failure == nil {
                var got = 0
                piece.withUnsafeMutableBufferPointer { failure = readAll(descriptor, into: $0, count: &got) }
                if got == 0 { break }
                bytes += piece[..<got]
            }
        }
        if let failure { throw FileSystemError(path: path, code: failure) }
        return bytes
    }

    /// Reads into `buffer` until it is full or the file ends; sets `count` to the bytes read.
    /// The error code on failure.
    private static func readAll(_ descriptor: Int32, into buffer: UnsafeMutableBufferPointer<UInt8>, count: inout Int) -> Int32? {
        while count < buffer.count {
            let got = read(descriptor, buffer.baseAddress! + count, buffer.count - count)
            if got < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if got == 0 { break }
            count += got
        }
        return nil
    }
}
