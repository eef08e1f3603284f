import MirrorLock

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Makes folders as `mkdir -p` does, and remembers each folder made or found: a writer of
/// thousands of files asks the system about each folder once.
public final class FolderMaker: Sendable {
    private let known = Locked<Set<String>>([])

    public init() {}

    /// Makes the folder at `path` and its missing parents.
    public func make(_ path: String) throws(FileSystemError) {
        guard !path.isEmpty, !known.withLock({ $0.contains(path) }) else { return }
        do { try PosixFile.makeFolder(path) } catch let error where error.code == ENOENT {
            guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { throw error }
            try make(String(path[..<slash]))
            try PosixFile.makeFolder(path)
        }
        known.withLock { _ = $0.insert(path) }
    }

    /// Makes the folder that `path` is in.
    public func makeParent(of path: String) throws(FileSystemError) {
        if let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) { try make(String(path[..<slash])) }
    }
}
