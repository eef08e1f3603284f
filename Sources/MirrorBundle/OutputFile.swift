import Foundation
import MirrorCore

/// A new file written with plain system calls. It refuses to replace anything or to follow
/// a link (`O_EXCL | O_NOFOLLOW`): extraction never writes through something it did not create.
final class OutputFile {
    let path: String
    private var descriptor: Int32

    init(path: String) throws {
        self.path = path
        do { descriptor = try PosixFile.open(path, flags: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW) } catch { throw BundleError.io(error) }
    }

    deinit { try? finish() }

    func append(_ bytes: UnsafeRawBufferPointer) throws {
        do { try PosixFile.writeAll(descriptor, bytes, path: path) } catch { throw BundleError.io(error) }
    }

    func append(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try append($0) }
    }

    /// Closes the file; a failure here can be a full disk showing up late.
    func finish() throws {
        guard descriptor >= 0 else { return }
        let result = close(descriptor)
        descriptor = -1
        if result != 0 { throw BundleError.io(FileSystemError(path: path, code: errno)) }
    }
}
