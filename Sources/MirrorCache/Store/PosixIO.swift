#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MirrorCore

/// The few POSIX file calls the store needs, with errors that name the path.
enum PosixIO {
    static func errorMessage(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }

    static func open(_ path: String, flags: Int32, mode: mode_t = 0o644) throws(CacheError) -> Int32 {
        let descriptor = path.withCString { systemOpen($0, flags | O_CLOEXEC, mode) }
        guard descriptor >= 0 else { throw .io(path: path, message: errorMessage()) }
        return descriptor
    }

    static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(CacheError) {
        if let code = FileWriting.writeAll(descriptor, bytes) { throw .io(path: path, message: errorMessage(code)) }
    }

    /// Reads up to `count` bytes; fewer only at the end of the file.
    static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String) throws(CacheError) -> Int {
        var total = 0
        while total < buffer.count {
            let got = systemRead(descriptor, buffer.baseAddress! + total, buffer.count - total)
            if got < 0 {
                if errno == EINTR { continue }
                throw .io(path: path, message: errorMessage())
            }
            if got == 0 { break }
            total += got
        }
        return total
    }

    /// Reads a file expected to hold exactly `expectedSize` bytes; nil when it is missing or
    /// has another length.
    static func readFile(_ path: String, expectedSize: Int) throws(CacheError) -> [UInt8]? {
        var stamp: FileStamp?
        return try readFile(path, expectedSize: expectedSize, stamp: &stamp)
    }

    /// `readFile`, also giving the stamp of the file read (from the descriptor read, so it is
    /// that file's even if the path is replaced meanwhile).
    static func readFile(_ path: String, expectedSize: Int, stamp: inout FileStamp?) throws(CacheError) -> [UInt8]? {
        let descriptor: Int32
        do { descriptor = try open(path, flags: O_RDONLY) } catch { return nil }
        defer { close(descriptor) }
        stamp = self.stamp(descriptor)
        // One byte more than expected, to notice a longer file.
        var bytes = [UInt8](repeating: 0, count: expectedSize + 1)
        var failure: CacheError?
        let got = bytes.withUnsafeMutableBytes { buffer -> Int in
            do throws(CacheError) { return try read(descriptor, into: buffer, path: path) } catch {
                failure = error
                return -1
            }
        }
        if let failure { throw failure }
        guard got == expectedSize else { return nil }
        bytes.removeLast()
        return bytes
    }

    static func writeFile(_ path: String, _ bytes: [UInt8]) throws(CacheError) {
        let descriptor = try open(path, flags: O_WRONLY | O_CREAT | O_TRUNC)
        defer { close(descriptor) }
        let failure = bytes.withUnsafeBytes { buffer -> CacheError? in
            do throws(CacheError) { try writeAll(descriptor, buffer, path: path) } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }

    static func rename(_ from: String, _ to: String) throws(CacheError) {
        guard systemRename(from, to) == 0 else { throw .io(path: to, message: errorMessage()) }
    }

    /// Removes a file; a file that is already gone is not an error.
    static func remove(_ path: String) {
        _ = unlink(path)
    }

    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// Removes an empty folder; one that is gone or not empty is left as it is.
    static func removeDirectory(_ path: String) {
        _ = rmdir(path)
    }

    static func makeDirectory(_ path: String) throws(CacheError) {
        if mkdir(path, 0o755) != 0 && errno != EEXIST { throw .io(path: path, message: errorMessage()) }
    }

    /// What tells one version of a file from another: a file rewritten or replaced gets another.
    struct FileStamp: Equatable {
        let device: UInt64, inode: UInt64, size: Int64, modified: Int64, modifiedNanoseconds: Int64

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int64(info.st_size)
            #if canImport(Darwin)
            modified = Int64(info.st_mtimespec.tv_sec)
            modifiedNanoseconds = Int64(info.st_mtimespec.tv_nsec)
            #else
            modified = Int64(info.st_mtim.tv_sec)
            modifiedNanoseconds = Int64(info.st_mtim.tv_nsec)
            #endif
        }
    }

    /// The stamp of an open file; nil when it cannot be read.
    static func stamp(_ descriptor: Int32) -> FileStamp? {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? FileStamp(info) : nil
    }

    /// The stamp of the file at `path`; nil when it cannot be read.
    static func stamp(atPath path: String) -> FileStamp? {
        var info = stat()
        return stat(path, &info) == 0 ? FileStamp(info) : nil
    }

    static func fileSize(_ path: String) -> Int? {
        stamp(atPath: path).map { Int($0.size) }
    }

    /// Flushes written files to stable storage. `sync()` covers every new body and the entry
    /// log at once, which is cheaper than an fsync per file; it runs at checkpoints only.
    static func syncFileSystem() {
        sync()
    }
}

// At file scope `open`, `read`, `write` and `rename` are the C library's (Glibc or Darwin);
// inside `PosixIO` its own methods of those names shadow them.
private func systemOpen(_ path: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int { read(descriptor, buffer, count) }
private func systemRename(_ from: String, _ to: String) -> Int32 { rename(from, to) }
