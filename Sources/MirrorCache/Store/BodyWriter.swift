import Crypto
import MirrorCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Streams a body into a temporary file while hashing it, so the store can rename
/// it into place under its digest: a reader never sees a partial body.
public final class BodyWriter {
    let temporaryPath: String
    private var descriptor: Int32
    private var hasher = SHA256()
    public private(set) var size = 0
    /// Refuse to write more than this many bytes.
    let limit: Int
    /// A copy of the body while it is small enough to keep in memory (nil once larger),
    /// so a just-stored small body need not be read back from disk.
    private(set) var retained: [UInt8]? = []
    private let retainLimit: Int

    init(temporaryPath: String, limit: Int, retainLimit: Int = 0) throws(CacheError) {
        self.temporaryPath = temporaryPath
        self.limit = limit
        self.retainLimit = retainLimit
        do { descriptor = try PosixFile.open(temporaryPath, flags: O_WRONLY | O_CREAT | O_TRUNC) } catch { throw .io(error) }
    }

    deinit {
        if descriptor >= 0 {
            close(descriptor)
            try? PosixFile.remove(temporaryPath)
        }
    }

    /// Appends bytes to the body.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(CacheError) {
        guard size + bytes.count <= limit else {
            throw .bodyTooLarge(url: "", limit: limit)
        }
        hasher.update(bufferPointer: bytes)
        do { try PosixFile.writeAll(descriptor, bytes, path: temporaryPath) } catch { throw .io(error) }
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

    /// Closes the file and returns the body's digest and the file's stamp (nil when it cannot
    /// be read); the file stays until the store moves it.
    func finish() -> (digest: String, size: Int, stamp: FileStamp?) {
        let stamp = PosixFile.stamp(descriptor)
        close(descriptor)
        descriptor = -1
        return (Hex.string(hasher.finalize()), size, stamp)
    }
}
