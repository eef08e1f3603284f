import Crypto
import Foundation
import MirrorCore

/// A new file written through a buffer, keeping the size and SHA-256 of what was written
/// (a WACZ's `datapackage.json` lists both for every file).
final class HashedFile {
    let path: String
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var hasher = SHA256()
    /// Bytes written so far (flushed or not).
    private(set) var size = 0

    /// Creates (or truncates) the file at `path`.
    init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw ArchiveError.io(path: path, message: "cannot create the file")
        }
        self.path = path
        self.handle = handle
    }

    func write(_ bytes: [UInt8]) throws {
        buffer += bytes
        size += bytes.count
        if buffer.count >= 1 << 20 { try flush() }
    }

    /// Lets `body` append to the buffer in place (a compressor writes straight into it).
    func withBuffer(_ body: (inout [UInt8]) throws -> Void) throws {
        let before = buffer.count
        try body(&buffer)
        size += buffer.count - before
        if buffer.count >= 1 << 20 { try flush() }
    }

    /// Flushes and closes the file; returns its size and lower-case hex SHA-256.
    func close() throws -> (size: Int, sha256: String) {
        try flush()
        do { try handle.close() } catch { throw ArchiveError.io(path: path, message: error.localizedDescription) }
        return (size, Hex.string(hasher.finalize()))
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        hasher.update(data: buffer)
        do {
            try handle.write(contentsOf: Data(buffer))
        } catch {
            throw ArchiveError.io(path: path, message: error.localizedDescription)
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
