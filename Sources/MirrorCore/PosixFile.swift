#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The POSIX calls on files and folders that the cache, the offline folder and the bundles
/// make: plain system calls, each failure a `FileSystemError` that names the path.
public enum PosixFile {
    /// Opens `path` with `flags` and `O_CLOEXEC` (no child process inherits the descriptor).
    public static func open(_ path: String, flags: Int32, mode: UInt32 = 0o644) throws(FileSystemError) -> Int32 {
        let descriptor = systemOpen(path, flags | O_CLOEXEC, mode_t(mode))
        guard descriptor >= 0 else { throw FileSystemError(path: path, code: errno) }
        return descriptor
    }

    /// Reads into `buffer` until it is full or the file ends; returns how many bytes were read,
    /// fewer than `buffer.count` only at the end of the file.
    public static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String) throws(FileSystemError) -> Int {
        try repeated(upTo: buffer.count, path: path) { systemRead(descriptor, buffer.baseAddress! + $0, buffer.count - $0) }
    }

    /// Reads up to `buffer.count` bytes at `offset` with one `pread` (the file position does not
    /// move, so any thread may read); returns how many, 0 at the end of the file.
    public static func read(
        _ descriptor: Int32, at offset: Int, into buffer: UnsafeMutableRawBufferPointer,
        path: String
    ) throws(FileSystemError) -> Int {
        while true {
            let got = pread(descriptor, buffer.baseAddress, buffer.count, off_t(offset))
            if got >= 0 { return got }
            if errno != EINTR { throw FileSystemError(path: path, code: errno) }
        }
    }

    /// Writes all of `bytes`, going on after partial and interrupted writes.
    public static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(FileSystemError) {
        let written = try repeated(upTo: bytes.count, path: path) { write(descriptor, bytes.baseAddress! + $0, bytes.count - $0) }
        if written < bytes.count { throw FileSystemError(path: path, code: EIO) }  // a write that wrote nothing
    }

    /// Writes all of `bytes`.
    public static func writeAll(_ descriptor: Int32, _ bytes: [UInt8], path: String) throws(FileSystemError) {
        var failure: FileSystemError?
        bytes.withUnsafeBytes { buffer in
            do throws(FileSystemError) { try writeAll(descriptor, buffer, path: path) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Renames `source` to `target`, replacing a file there; the error names `target`.
    public static func rename(_ source: String, to target: String) throws(FileSystemError) {
        guard systemRename(source, target) == 0 else { throw FileSystemError(path: target, code: errno) }
    }

    /// Removes the file at `path`; one already gone is not an error.
    public static func remove(_ path: String) throws(FileSystemError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw FileSystemError(path: path, code: errno) }
    }

    /// Removes the empty folder at `path`; one already gone is not an error.
    public static func removeFolder(_ path: String) throws(FileSystemError) {
        guard rmdir(path) == 0 || errno == ENOENT else { throw FileSystemError(path: path, code: errno) }
    }

    /// Whether there is a file or folder at `path`.
    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// Makes the folder at `path` (mode 0755); one that exists is not an error. Its parent must
    /// exist: `FolderMaker` makes missing parents too.
    public static func makeFolder(_ path: String) throws(FileSystemError) {
        guard mkdir(path, 0o755) == 0 || errno == EEXIST else { throw FileSystemError(path: path, code: errno) }
    }

    /// The stamp of an open file; nil when it cannot be read.
    public static func stamp(_ descriptor: Int32) -> FileStamp? {
        var status = stat()
        return fstat(descriptor, &status) == 0 ? FileStamp(status) : nil
    }

    /// The stamp of the file at `path`; nil when it cannot be read.
    public static func stamp(atPath path: String) -> FileStamp? {
        var status = stat()
        return stat(path, &status) == 0 ? FileStamp(status) : nil
    }

    /// The size of the file at `path`; nil when it cannot be read.
    public static func size(atPath path: String) -> Int? {
        stamp(atPath: path).map { Int($0.size) }
    }

    /// Flushes every written file to stable storage (`sync()`): one call for many files, cheaper
    /// than an fsync for each.
    public static func syncFileSystem() {
        sync()
    }

    /// Makes `call` (a `read` or `write` of the bytes from the offset it gets) until `count` bytes
    /// are done or it does none, going on after partial and interrupted calls; returns how many
    /// are done.
    private static func repeated(upTo count: Int, path: String, _ call: (_ done: Int) -> Int) throws(FileSystemError) -> Int {
        var done = 0
        while done < count {
            let got = call(done)
            if got < 0 {
                if errno == EINTR { continue }
                throw FileSystemError(path: path, code: errno)
            }
            if got == 0 { break }
            done += got
        }
        return done
    }
}

// At file scope `open`, `read` and `rename` are the C library's; inside `PosixFile` its own
// methods of those names shadow them.
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int { read(descriptor, buffer, count) }
private func systemRename(_ from: String, _ to: String) -> Int32 { rename(from, to) }
