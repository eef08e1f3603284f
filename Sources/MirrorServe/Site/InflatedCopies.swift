import MirrorLock
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A bundle's files as inflated whole once, kept in one temporary file that has no name (it is
/// removed as soon as it is made, so nothing is left behind, even after `kill -9`).
///
/// The kernel's page cache holds the copies, outside the server's memory and given back under
/// memory pressure like any file's, and sends them (`sendfile`) as it sends a folder's: a
/// bundle's files cost what a folder's do once each has been asked for whole, and the bundle
/// is still never unpacked. The file grows up to `limit` bytes; the room of a copy abandoned
/// half-way is used again. A write that fails (a full disk) turns copying off, and files are
/// inflated for each request, as without it.
final class InflatedCopies: Sendable {
    private struct State {
        /// Where each finished copy starts.
        var starts: [String: Int] = [:]
        /// Paths whose copy is being written.
        var writing: Set<String> = []
        /// Where the file ends: finished copies, those being written, and room given back.
        var end = 0
        /// Room of abandoned copies, for later ones to reuse (a video player asks for a whole
        /// file, then hangs up to ask for ranges: every play would take the file's size again).
        var free: [Range<Int>] = []
        var failed = false

        /// Room for `size` bytes: the first room given back that is large enough, else at the end.
        mutating func take(_ size: Int, limit: Int) -> Int? {
            if let index = free.firstIndex(where: { $0.count >= size }) {
                let room = free[index]
                free[index] = room.lowerBound + size..<room.upperBound
                if free[index].isEmpty { free.remove(at: index) }
                return room.lowerBound
            }
            guard size <= limit - end else { return nil }
            defer { end += size }
            return end
        }
    }

    private let descriptor: Int32
    private let limit: Int
    private let state = Locked(State())

    /// Makes the file in `directory`; nil when `limit` is 0 or the file cannot be made.
    init?(directory: String, limit: Int) {
        guard limit > 0 else { return nil }
        var template = Array((directory + "/mirror-serve-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return nil }
        _ = template.withUnsafeBufferPointer { unlink($0.baseAddress!) }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        self.descriptor = descriptor
        self.limit = limit
    }

    deinit { close(descriptor) }

    /// A descriptor of its own (the caller closes it) for `path`'s copy, and where the copy
    /// starts in it; nil when there is no finished copy.
    func open(_ path: String) -> (handle: NIOFileHandle, start: Int)? {
        guard let start = state.withLock({ $0.starts[path] }) else { return nil }
        let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { return nil }
        return (NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: copy), start)
    }

    /// Room for a copy of `path`'s `size` bytes, to be written in order; nil when there is a
    /// copy already, one is being written, or no room is left.
    func startCopy(of path: String, size: Int) -> Copy? {
        state.withLock { state in
            guard !state.failed, size > 0, state.starts[path] == nil, !state.writing.contains(path),
                let start = state.take(size, limit: limit)
            else { return nil }
            state.writing.insert(path)
            return Copy(copies: self, path: path, start: start, size: size)
        }
    }

    /// Ends `copy`'s writing: kept when `finished`; else its room is given back, and a
    /// `failed` write stops all copying.
    fileprivate func end(_ copy: Copy, finished: Bool, failed: Bool) {
        state.withLock { state in
            state.writing.remove(copy.path)
            if finished { state.starts[copy.path] = copy.start } else { state.free.append(copy.room) }
            if failed { state.failed = true }
        }
    }

    /// Writes all of `bytes` at `offset`; false when the system refuses (a full disk).
    fileprivate func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        var done = 0
        while done < bytes.count {
            let count = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            done += count
        }
        return true
    }
}

extension InflatedCopies {
    /// One file's copy, written in order by the reader that inflates it. It counts once all
    /// its bytes are written; a reader closed before its end abandons it.
    final class Copy: Sendable {
        private let copies: InflatedCopies
        fileprivate let path: String
        fileprivate let start: Int
        private let size: Int
        fileprivate var room: Range<Int> { start..<start + size }
        /// Bytes written so far; nil once the copy has ended.
        private let written: Locked<Int?> = Locked(0)

        fileprivate init(copies: InflatedCopies, path: String, start: Int, size: Int) {
            self.copies = copies
            self.path = path
            self.start = start
            self.size = size
        }

        /// Writes the next bytes of the file.
        func append(_ bytes: ByteBuffer) {
            written.withLock { written in
                guard let done = written else { return }
                guard done + bytes.readableBytes <= size,
                    bytes.withUnsafeReadableBytes({ copies.write($0, at: start + done) })
                else {
                    written = nil
                    return copies.end(self, finished: false, failed: true)
                }
                written = done + bytes.readableBytes
                if written == size {
                    written = nil
                    copies.end(self, finished: true, failed: false)
                }
            }
        }

        /// Gives the copy up, unless it is finished.
        func abandon() {
            written.withLock { written in
                guard written != nil else { return }
                written = nil
                copies.end(self, finished: false, failed: false)
            }
        }
    }
}
