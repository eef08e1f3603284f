#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole-file reads with plain system calls, where asking first whether the file exists would
/// cost a second lookup of the name (in a folder of 100,000 kept originals, a measurable one).
public enum FileReading {
    /// The bytes of the file at `path`; nil when there is no such file.
    public static func contents(of path: String) throws(FileSystemError) -> [UInt8]? {
        guard let descriptor = try openUnlessMissing(path) else { return nil }
        defer { close(descriptor) }
        guard let stamp = PosixFile.stamp(descriptor) else { throw FileSystemError(path: path, code: errno) }
        // One byte more than its size, to see the end in the same read; in pieces after that
        // if it grows.
        let expected = max(Int(stamp.size), 0) + 1
        var bytes = try read(descriptor, upTo: expected, path: path)
        if bytes.count == expected {
            var piece = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                var failure: FileSystemError?
                let got = piece.withUnsafeMutableBytes { buffer in
                    do throws(FileSystemError) { return try PosixFile.read(descriptor, into: buffer, path: path) } catch {
                        failure = error
                        return 0
                    }
                }
                if let failure { throw failure }
                if got == 0 { break }
                bytes += piece[..<got]
            }
        }
        return bytes
    }

    /// The bytes of the file at `path` when it holds exactly `expectedSize` bytes; nil when there
    /// is no such file or it has another length. `stamp` is set to the stamp of the file read
    /// (from its descriptor, so it is that file's even if the path is replaced meanwhile).
    public static func contents(of path: String, expectedSize: Int, stamp: inout FileStamp?) throws(FileSystemError) -> [UInt8]? {
        guard let descriptor = try openUnlessMissing(path) else { return nil }
        defer { close(descriptor) }
        stamp = PosixFile.stamp(descriptor)
        // One byte more than expected, to notice a longer file.
        let bytes = try read(descriptor, upTo: expectedSize + 1, path: path)
        return bytes.count == expectedSize ? bytes : nil
    }

    /// The file's first `count` bytes (all of it when it is shorter); nil when there is no such file.
    public static func prefix(of path: String, upTo count: Int) throws(FileSystemError) -> [UInt8]? {
        guard let descriptor = try openUnlessMissing(path) else { return nil }
        defer { close(descriptor) }
        return try read(descriptor, upTo: count, path: path)
    }

    /// Hands the file at `path` to `body` a piece at a time, through one buffer of `pieceSize`
    /// bytes, so that a large file is never held whole; false when there is no such file.
    public static func forEachPiece(
        of path: String, pieceSize: Int = 1 << 20, _ body: (UnsafeRawBufferPointer) -> Void
    ) throws(FileSystemError) -> Bool {
        guard let descriptor = try openUnlessMissing(path) else { return false }
        defer { close(descriptor) }
        let read = { (piece: UnsafeRawBufferPointer) throws(FileSystemError) in body(piece) }
        try forEachPiece(ofDescriptor: descriptor, path: path, pieceSize: pieceSize, readFailure: { $0 }, read)
        return true
    }

    /// Hands the file open as `descriptor`, from its position to its end, to `body` a piece at
    /// a time through one buffer of `pieceSize` bytes. A failed read throws what `readFailure`
    /// makes of it; what `body` throws goes on as it is.
    public static func forEachPiece<Failure: Error>(
        ofDescriptor descriptor: Int32, path: String, pieceSize: Int = 1 << 20,
        readFailure: (FileSystemError) -> Failure, _ body: (UnsafeRawBufferPointer) throws(Failure) -> Void
    ) throws(Failure) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: pieceSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let got: Int
            do { got = try PosixFile.read(descriptor, into: buffer, path: path) } catch { throw readFailure(error) }
            if got > 0 { try body(UnsafeRawBufferPointer(rebasing: buffer[..<got])) }
            if got < pieceSize { return }
        }
    }

    /// A descriptor to read the file at `path`; nil when there is no such file.
    private static func openUnlessMissing(_ path: String) throws(FileSystemError) -> Int32? {
        do { return try PosixFile.open(path, flags: O_RDONLY) } catch let error where error.code == ENOENT { return nil }
    }

    /// Up to `count` bytes, fewer only when the file ends first. Not zeroed first: the bytes are
    /// read over at once.
    private static func read(_ descriptor: Int32, upTo count: Int, path: String) throws(FileSystemError) -> [UInt8] {
        var failure: FileSystemError?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            do throws(FileSystemError) {
                initialized = try PosixFile.read(descriptor, into: UnsafeMutableRawBufferPointer(buffer), path: path)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return bytes
    }
}
