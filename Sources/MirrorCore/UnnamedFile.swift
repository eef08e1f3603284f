#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files made without a name (Linux's `O_TMPFILE`) and named once whole: a file written this way
/// needs no temporary name and no rename, and a kill before it is named leaves nothing behind.
/// Linux makes them on ext4, XFS, Btrfs and tmpfs; elsewhere (another system, an older overlay
/// file system) `open(in:)` gives nil and the caller writes a temporary file instead.
public enum UnnamedFile {
    /// Whether this system names such files through `/proc`, as `name(_:at:)` does.
    public static let isAvailable: Bool = {
        #if os(Linux)
        PosixFile.exists("/proc/self/fd")
        #else
        false
        #endif
    }()

    /// A new, empty file without a name on the file system of `folder`, open for reading and
    /// writing; nil where none can be made there.
    public static func open(in folder: String) -> Int32? {
        #if os(Linux)
        guard isAvailable else { return nil }
        return try? PosixFile.open(folder, flags: __O_TMPFILE | O_DIRECTORY | O_RDWR)
        #else
        return nil
        #endif
    }

    /// The path that opens the file `descriptor` again (another descriptor to the same file)
    /// while it is open.
    public static func reopeningPath(_ descriptor: Int32) -> String {
        "/proc/self/fd/\(descriptor)"
    }

    /// Gives the file `open(in:)` made the name `path`, on the same file system. Fails with
    /// `EEXIST` when the name is taken: a link never replaces a file.
    public static func name(_ descriptor: Int32, at path: String) throws(FileSystemError) {
        #if os(Linux)
        guard linkat(AT_FDCWD, reopeningPath(descriptor), AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0 else {
            throw FileSystemError(path: path, code: errno)
        }
        #else
        preconditionFailure("this system makes no unnamed files")
        #endif
    }
}
