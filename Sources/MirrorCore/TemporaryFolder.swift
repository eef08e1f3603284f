import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A folder of temporary files, spread over 16 subfolders (`0` … `f`), each file named for
/// this process and a counter. Creating a file in a folder, and renaming one out of it, holds
/// the folder's lock in the kernel (the inode's `i_rwsem` on Linux) for as long as the new
/// inode takes to allocate: with one folder, the writers of a crawl waited for each other
/// there (perf, 10,000 pages: 5 % of all CPU spinning on it).
public final class TemporaryFolder: Sendable {
    public let path: String
    private let counter = Atomic<UInt64>(0)
    /// Separates live processes; a leftover of a dead process with the same ID is overwritten.
    private static let processID = getpid()
    private static let subfolders = (0..<16).map { String($0, radix: 16) }

    public init(path: String) {
        self.path = path
    }

    /// A path for a new temporary file, unique within this process.
    public func newPath() -> String {
        let number = counter.add(1, ordering: .relaxed).newValue
        return "\(path)/\(Self.subfolders[Int(number % 16)])/\(Self.processID)-\(number)"
    }

    /// Makes the folder and its subfolders, keeping those that exist. The error, if any, names
    /// the folder that could not be made.
    public func create() throws(FileSystemError) {
        for folder in [path] + Self.subfolders.map({ "\(path)/\($0)" }) { try PosixFile.makeFolder(folder) }
    }

    /// The paths of the files in it: in its subfolders, and directly in it (an older layout).
    public func files() -> [String] {
        let subfolders = Set(Self.subfolders)
        let direct = FolderListing.names(in: path).filter { !subfolders.contains($0) }.map { "\(path)/\($0)" }
        return direct
            + Self.subfolders.flatMap { folder in
                FolderListing.names(in: "\(path)/\(folder)").map { "\(path)/\(folder)/\($0)" }
            }
    }
}
