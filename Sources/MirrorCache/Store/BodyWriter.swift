import Crypto
import MirrorCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Streams a body into a file of the cache's temporary folder while hashing it, so the store
/// can give it its digest's name once whole: a reader never sees a partial body.
public final class BodyWriter {
    /// The file the body is written to.
    private enum File {
        /// Without a name (`UnnamedFile`), named under its digest when stored: no temporary name
        /// to make, rename and remove, and a kill leaves nothing behind.
        case unnamed(Int32)
        /// A temporary file (where no unnamed files are made), renamed when stored.
        case named(Int32, path: String)
        /// Stored, kept as a temporary file, or dropped.
        case closed
    }

    private let temporary: TemporaryFolder
    private var file: File
    private var hasher = SHA256()
    public private(set) var size = 0
    /// Refuse to write more than this many bytes.
    let limit: Int
    /// A copy of the body while it is small enough to keep in memory (nil once larger),
    /// so a just-stored small body need not be read back from disk.
    private(set) var retained: [UInt8]? = []
    private let retainLimit: Int

    /// - Parameter unnamed: whether to try a file without a name first (where the system makes
    ///   none, it is a temporary file either way; tests turn it off to take that path here).
    init(temporary: TemporaryFolder, limit: Int, retainLimit: Int = 0, unnamed: Bool = true) throws(CacheError) {
        self.temporary = temporary
        self.limit = limit
        self.retainLimit = retainLimit
        if unnamed, let descriptor = UnnamedFile.open(in: temporary.path) {
            file = .unnamed(descriptor)
        } else {
            let path = temporary.newPath()
            do { file = .named(try PosixFile.open(path, flags: O_WRONLY | O_CREAT | O_TRUNC), path: path) } catch { throw .io(error) }
        }
    }

    deinit {
        discard()
    }

    /// Appends bytes to the body.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(CacheError) {
        guard size + bytes.count <= limit else {
            throw .bodyTooLarge(url: "", limit: limit)
        }
        hasher.update(bufferPointer: bytes)
        do { try PosixFile.writeAll(descriptor, bytes, path: description) } catch { throw .io(error) }
        size += bytes.count
        if size <= retainLimit { retained?.append(contentsOf: bytes) } else { retained = nil }
    }

    /// Appends bytes to the body.
    public func write(_ bytes: [UInt8]) throws(CacheError) {
        let failure = bytes.withUnsafeBytes { buffer -> CacheError? in
            do throws(CacheError) { try write(buffer) } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }

    /// The body's digest and the file's stamp (nil when it cannot be read), once all is written.
    func finish() -> (digest: String, size: Int, stamp: FileStamp?) {
        (Hex.string(hasher.finalize()), size, PosixFile.stamp(descriptor))
    }

    /// A path that opens the file being written, for a reader that follows it (`GrowingBody`)
    /// and opens it before the store names or removes it.
    var readablePath: String {
        switch file {
        case .unnamed(let descriptor): UnnamedFile.reopeningPath(descriptor)
        case .named(_, let path): path
        case .closed: preconditionFailure("the body file is closed")
        }
    }

    /// Gives the file the name `target` (the store's name for its digest), unless a file of the
    /// same size is there already (the same body, stored before: it stays and this one is
    /// dropped). True when this file took the name. A file of another size there (damaged) is
    /// replaced.
    func place(at target: String) throws(FileSystemError) -> Bool {
        defer { discard() }
        if case .unnamed(let descriptor) = file {
            do {
                try UnnamedFile.name(descriptor, at: target)
                return true
            } catch {
                guard error.code == EEXIST else { throw error }
            }
        }
        if PosixFile.size(atPath: target) == size { return false }
        let path = try keptFile()
        do { try PosixFile.rename(path, to: target) } catch {
            try? PosixFile.remove(path)
            throw error
        }
        return true
    }

    /// Closes the file and leaves it in the temporary folder; returns its path. The caller
    /// removes it (an uncached body, read once). Fails when the file was stored or dropped.
    func keptFile() throws(FileSystemError) -> String {
        let path: String
        switch file {
        case .unnamed(let descriptor):
            path = temporary.newPath()
            try UnnamedFile.name(descriptor, at: path)
            close(descriptor)
        case .named(let descriptor, let named):
            path = named
            close(descriptor)
        case .closed:
            throw FileSystemError(path: description, code: ENOENT)
        }
        file = .closed
        return path
    }

    /// Closes the file and removes it, unless it is stored or kept already.
    func discard() {
        switch file {
        case .unnamed(let descriptor):
            close(descriptor)
        case .named(let descriptor, let path):
            close(descriptor)
            try? PosixFile.remove(path)
        case .closed:
            break
        }
        file = .closed
    }

    private var descriptor: Int32 {
        switch file {
        case .unnamed(let descriptor), .named(let descriptor, _): descriptor
        case .closed: preconditionFailure("the body file is closed")
        }
    }

    /// The file, as error messages name it.
    private var description: String {
        switch file {
        case .named(_, let path): path
        case .unnamed, .closed: temporary.path + " (a file without a name)"
        }
    }
}
