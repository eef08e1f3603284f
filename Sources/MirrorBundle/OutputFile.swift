import Foundation
import MirrorCore

/// A new file written with plain system calls. It refuses to replace anything or to follow
/// a link (`O_EXCL | O_NOFOLLOW`): extraction never writes through something it did not create.
final class OutputFile {
    let path: String
    private var descriptor: Int32

    init(path: String) throws {
        self.path = path
        descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Self.failure(path) }
    }

    deinit { try? finish() }

    func append(_ bytes: UnsafeRawBufferPointer) throws {
        if let code = FileWriting.writeAll(descriptor, bytes) {
            throw Self.failure(path, code: code)
        }
    }

    func append(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try append($0) }
    }

    /// Closes the file; a failure here can be a full disk showing up late.
    func finish() throws {
        guard descriptor >= 0 else { return }
        let result = close(descriptor)
        descriptor = -1
        if result != 0 { throw Self.failure(path) }
    }

    /// The error for the last failed call, in words (a full disk says "No space left on device").
    static func failure(_ path: String, code: Int32 = errno) -> BundleError {
        BundleError.io(path: path, message: String(cString: strerror(code)))
    }
}
