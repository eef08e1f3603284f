import Foundation
import MirrorCore

/// A file read in large chunks with plain system calls (bundles move hundreds of megabytes),
/// in order with `readChunks`, or at any offset from any thread with `readBytes(at:into:)`.
final class InputFile: Sendable {
    let path: String
    let size: Int
    private let descriptor: Int32

    /// Opens `path`; a missing file throws `missing`.
    init(path: String, missing: @autoclosure () -> BundleError) throws {
        self.path = path
        do { descriptor = try PosixFile.open(path, flags: O_RDONLY) } catch {
            if error.code == ENOENT { throw missing() }
            throw BundleError.io(error)
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw BundleError.io(path: path, message: "not a regular file")
        }
        size = Int(info.st_size)
    }

    deinit { close(descriptor) }

    /// Calls `body` with each chunk until the end of the file.
    func readChunks(size chunkSize: Int = 1 << 20, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        try FileReading.forEachPiece(
            ofDescriptor: descriptor, path: path, pieceSize: chunkSize, readFailure: { BundleError.io($0) as any Error }, body)
    }

    /// Reads up to `buffer.count` bytes at `offset` (without moving the file position);
    /// returns how many, 0 at the end of the file.
    func readBytes(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        do { return try PosixFile.read(descriptor, at: offset, into: buffer, path: path) } catch { throw BundleError.io(error) }
    }

    /// The `count` bytes at `offset`; nil when the file ends before them or cannot be read.
    func bytes(at offset: Int, count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let read = try? bytes.withUnsafeMutableBytes {
                try readBytes(at: offset + filled, into: UnsafeMutableRawBufferPointer(rebasing: $0[filled...]))
            }
            guard let read, read > 0 else { return nil }
            filled += read
        }
        return bytes
    }
}
