import Crypto
import MirrorCore

#if canImport(Glibc)
import Glibc
#endif

/// A response body: bytes in memory, a file read in chunks, or (for a client that streams
/// bodies) a file still being written to the store. A body from the cache is checked against
/// its digest; a mismatch throws `CacheError.corruptBody` (after the damaged entry has been
/// dropped), so damaged bytes are never returned as a good body.
public struct ResponseBody: Sendable {
    enum Source: Sendable {
        case bytes([UInt8])
        case file(BodyFile)
        case growing(GrowingBody)
    }

    let source: Source
    /// The body's length in bytes; for a body still arriving, the length the origin announced
    /// (0 when it announced none: see `lengthIsKnown`).
    public let count: Int
    /// False for a body still arriving whose length the origin did not announce.
    public let lengthIsKnown: Bool

    /// A body held in memory.
    public init(bytes: [UInt8]) {
        source = .bytes(bytes)
        count = bytes.count
        lengthIsKnown = true
    }

    init(file: BodyFile) {
        source = .file(file)
        count = file.size
        lengthIsKnown = true
    }

    init(growing: GrowingBody, announcedLength: Int?) {
        source = .growing(growing)
        count = announcedLength ?? 0
        lengthIsKnown = announcedLength != nil
    }

    public static let empty = ResponseBody(bytes: [])

    /// The bytes, when the body is held in memory (nil for a file, read in chunks).
    public var bytesInMemory: [UInt8]? {
        if case .bytes(let bytes) = source { return bytes }
        return nil
    }

    /// An open descriptor of the stored file that holds the body, when this process has checked
    /// the bytes of that very file (unchanged since): a server can have the kernel send it
    /// (`sendfile`) without reading it. The caller closes it. Nil for a body in memory, still
    /// arriving, or not checked yet: read those with `chunks()`, which checks them.
    public func openCheckedFile() -> Int32? {
        if case .file(let file) = source { return file.openChecked() }
        return nil
    }

    /// Returns once a body still arriving is whole (at once for any other); throws if its
    /// download failed.
    public func arrival() async throws {
        if case .growing(let growing) = source { try await growing.completion() }
    }

    /// The whole body in memory. Throws when it is larger than `limit` or damaged, and for a
    /// body still arriving (read that with `chunks()`).
    public func collect(limit: Int = .max) throws -> [UInt8] {
        if count > limit { throw CacheError.bodyTooLarge(url: "", limit: limit) }
        if case .bytes(let bytes) = source { return bytes }
        var result: [UInt8] = []
        result.reserveCapacity(count)
        try forEachChunk { result += $0 }
        return result
    }

    /// Calls `body` with the body in chunks of at most `chunkSize` bytes, without holding it
    /// whole; the last read checks the digest (and throws when the body is damaged).
    public func forEachChunk(chunkSize: Int = 256 * 1024, _ body: ([UInt8]) throws -> Void) throws {
        switch source {
        case .bytes(let bytes):
            for start in stride(from: 0, to: bytes.count, by: chunkSize) {
                try body(Array(bytes[start..<Swift.min(start + chunkSize, bytes.count)]))
            }
        case .growing(let growing):
            throw CacheError.io(path: growing.path, message: "the body is still arriving (read it with chunks())")
        case .file(let file):
            var reader = try file.makeReader()
            while let chunk = try reader.next(maxLength: chunkSize) { try body(chunk) }
        }
    }

    /// The body in chunks of at most `chunkSize` bytes; the last read checks the digest.
    public func chunks(chunkSize: Int = 64 * 1024) -> Chunks { Chunks(body: self, chunkSize: chunkSize) }

    /// An async sequence of the body's chunks.
    public struct Chunks: AsyncSequence, Sendable {
        public typealias Element = [UInt8]
        let body: ResponseBody
        let chunkSize: Int

        public func makeAsyncIterator() -> Iterator { Iterator(body: body, chunkSize: chunkSize) }

        public struct Iterator: AsyncIteratorProtocol {
            let body: ResponseBody
            let chunkSize: Int
            var offset = 0
            var reader: BodyFile.Reader?

            /// The next chunk; a cancelled reader gets `CancellationError` instead.
            public mutating func next() async throws -> [UInt8]? {
                try Task.checkCancellation()
                switch body.source {
                case .bytes(let bytes):
                    guard offset < bytes.count else { return nil }
                    let end = Swift.min(offset + chunkSize, bytes.count)
                    defer { offset = end }
                    return Array(bytes[offset..<end])
                case .file(let file):
                    if reader == nil { reader = try file.makeReader() }
                    return try reader!.next(maxLength: chunkSize)
                case .growing(let growing):
                    guard let chunk = try await growing.read(at: offset, maxLength: chunkSize) else { return nil }
                    offset += chunk.count
                    return chunk
                }
            }
        }
    }
}

/// A body file: a stored body (checked against its digest), or a temporary file holding
/// an uncached response (deleted when the last reference goes).
final class BodyFile: Sendable {
    let path: String
    let size: Int
    let digest: String?
    let isTemporary: Bool
    /// The store's record of checked files: one read unchanged since it was checked is not
    /// hashed again, and one read and found intact is recorded there.
    let checked: CheckedBodies?
    /// Called when the bytes do not match the digest: the store drops the entry.
    let onDamage: @Sendable () -> Void

    init(
        path: String, size: Int, digest: String?, isTemporary: Bool, checked: CheckedBodies? = nil,
        onDamage: @escaping @Sendable () -> Void = {}
    ) {
        self.path = path
        self.size = size
        self.digest = digest
        self.isTemporary = isTemporary
        self.checked = checked
        self.onDamage = onDamage
    }

    deinit {
        if isTemporary { try? PosixFile.remove(path) }
    }

    func makeReader() throws -> Reader {
        guard let descriptor = try? PosixFile.open(path, flags: O_RDONLY) else {
            onDamage()
            throw CacheError.corruptBody(url: path, digest: digest ?? "")
        }
        return Reader(file: self, descriptor: FileDescriptorBox(descriptor), stamp: PosixFile.stamp(descriptor))
    }

    /// Whether the file holds the body: read to its end and checked against the digest (not
    /// read when this very file was checked before). A damaged one calls `onDamage`.
    func isIntact() -> Bool {
        guard var reader = try? makeReader() else { return false }
        if reader.stamp?.size == Int64(size), isChecked(reader.stamp) { return true }
        do {
            while try reader.next(maxLength: 1 << 20) != nil {}
            return true
        } catch {
            return false
        }
    }

    /// An open descriptor of the file when the store checked this very file (same stamp) and it
    /// has its size; the caller closes it. Nil otherwise: read it with `makeReader`, which checks.
    func openChecked() -> Int32? {
        guard checked != nil, let descriptor = try? PosixFile.open(path, flags: O_RDONLY) else { return nil }
        if let stamp = PosixFile.stamp(descriptor), stamp.size == size, isChecked(stamp) { return descriptor }
        close(descriptor)
        return nil
    }

    /// Whether the store checked the bytes of the file with this stamp.
    fileprivate func isChecked(_ stamp: FileStamp?) -> Bool {
        guard let digest, let checked, let stamp else { return false }
        return checked.isChecked(digest, stamp)
    }

    /// Reads the file once; the file stays readable even if the store unlinks it meanwhile.
    struct Reader {
        let file: BodyFile
        let descriptor: FileDescriptorBox
        /// The stamp of the file open, when it could be read.
        let stamp: FileStamp?
        var hasher = SHA256()
        var total = 0
        var done = false
        /// Whether the digest is to be checked: not for a file checked before and unchanged since.
        let hashes: Bool

        init(file: BodyFile, descriptor: FileDescriptorBox, stamp: FileStamp?) {
            self.file = file
            self.descriptor = descriptor
            self.stamp = stamp
            hashes = file.digest != nil && !file.isChecked(stamp)
        }

        mutating func next(maxLength: Int) throws -> [UInt8]? {
            guard !done else { return nil }
            // One byte more than the rest, to notice a longer file without a read of its own.
            let length = Swift.max(1, Swift.min(maxLength, file.size - total + 1))
            var chunk = [UInt8](repeating: 0, count: length)
            let got = try chunk.withUnsafeMutableBytes { buffer in
                do throws(FileSystemError) { return try PosixFile.read(descriptor.value, into: buffer, path: file.path) } catch {
                    throw CacheError.io(error)
                }
            }
            if got == 0 {
                done = true
                try verify()
                return nil
            }
            chunk.removeLast(length - got)
            total += got
            if hashes { hasher.update(data: chunk) }
            if total > file.size { try fail() }
            return chunk
        }

        private func verify() throws {
            guard let expected = file.digest else { return }
            guard total == file.size else { try fail() }
            if hashes {
                guard Hex.string(hasher.finalize()) == expected else { try fail() }
                if let stamp { file.checked?.remember(expected, stamp) }
            }
        }

        private func fail() throws -> Never {
            file.onDamage()
            throw CacheError.corruptBody(url: file.path, digest: file.digest ?? "")
        }
    }
}

/// Closes its descriptor when the last reader copy goes.
final class FileDescriptorBox: Sendable {
    let value: Int32
    init(_ value: Int32) { self.value = value }
    deinit { close(value) }
}
