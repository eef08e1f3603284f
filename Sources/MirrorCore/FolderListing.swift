#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The names in a folder, read with `opendir`/`readdir` (no Foundation, no stat per entry).
public enum FolderListing {
    /// The names of the entries of the folder at `path`, without `.` and `..`; empty when it
    /// cannot be read.
    public static func names(in path: String) -> [String] {
        var names: [String] = []
        forEachName(in: path) { names.append($0) }
        return names
    }

    private static let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!

    /// Calls `body` with the name of each entry of the folder at `path`, without `.` and `..`,
    /// as they are read (a folder of 100,000 names is never held whole); none when it cannot be read.
    public static func forEachName(in path: String, _ body: (String) -> Void) {
        guard let directory = opendir(path) else { return }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            // The name is read where it lies: `entry.pointee.d_name` would copy all 256 bytes of
            // the field, but a record is only as long as its name (`d_reclen`), and the last one
            // of readdir's buffer may end sooner (AddressSanitizer reported the overread).
            let name = String(cString: UnsafeRawPointer(entry).advanced(by: nameOffset).assumingMemoryBound(to: CChar.self))
            if name != "." && name != ".." { body(name) }
        }
    }
}
