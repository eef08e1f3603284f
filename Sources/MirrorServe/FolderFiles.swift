#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
public import MirrorSite
public import NIOCore

/// A mirrored folder's files. A path is opened one component at a time from the folder's own
/// descriptor, never following a symbolic link, so nothing outside the folder can be reached
/// whatever the manifest or the folder holds (a symlink to `/etc` is refused, not followed).
public final class FolderFiles: SiteFiles {
    public let manifest: SiteManifest
    private let root: Int32

    /// Opens `folder` and reads its `.mirror/manifest.json`.
    public init(folder: String) throws(ServeError) {
        root = folder.withCString { systemOpen($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard root >= 0 else { throw .source(path: folder, reason: String(cString: strerror(errno))) }
        let manifestPath = folder + "/" + SiteManifest.path
        guard let bytes = FileManager.default.contents(atPath: manifestPath) else {
            closeDescriptor(root)
            throw .source(path: folder, reason: "not a mirrored folder (no \(SiteManifest.path)); crawl into it first")
        }
        do {
            manifest = try SiteManifest.decode(Array(bytes))
        } catch {
            closeDescriptor(root)
            throw .source(path: folder, reason: "\(error)")
        }
    }

    deinit { closeDescriptor(root) }

    public func open(_ path: String, range: Range<Int>) throws -> (any SiteFileReader)? {
        let components = path.split(separator: "/", omittingEmptySubsequences: false)
        guard components.allSatisfy(Self.isPlainName) else { return nil }
        var directory = root
        defer { if directory != root { closeDescriptor(directory) } }
        for component in components.dropLast() {
            let next = String(component).withCString { openat(directory, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
            guard next >= 0 else { return nil }
            if directory != root { closeDescriptor(directory) }
            directory = next
        }
        let descriptor = String(components.last!).withCString { openat(directory, $0, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            closeDescriptor(descriptor)
            return nil
        }
        return FolderFile(descriptor: descriptor, fileSize: Int(status.st_size), range: range, path: path)
    }

    /// A name that stays inside its folder: not empty, `.` or `..`, no NUL.
    private static func isPlainName(_ name: Substring) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.utf8.contains(0)
    }
}

/// A range of an open regular file of a folder, read with `pread`.
///
/// Unchecked Sendable: `position` changes in `next()`, which has one caller at a time.
final class FolderFile: SiteFileReader, @unchecked Sendable {
    let fileSize: Int
    private let descriptor: Int32
    private let range: Range<Int>
    private var position: Int
    private let path: String

    init(descriptor: Int32, fileSize: Int, range: Range<Int>, path: String) {
        self.descriptor = descriptor
        self.fileSize = fileSize
        self.range = range
        position = range.lowerBound
        self.path = path
    }

    func next() throws -> ByteBuffer? {
        let count = min(Self.pieceSize, range.upperBound - position)
        guard count > 0 else { return nil }
        var buffer = ByteBufferAllocator().buffer(capacity: count)
        try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { target -> Int in
            var total = 0
            while total < count {
                let read = pread(descriptor, target.baseAddress! + total, count - total, off_t(position + total))
                if read < 0 {
                    if errno == EINTR { continue }
                    throw ServeError.read(path: path, reason: String(cString: strerror(errno)))
                }
                if read == 0 { throw ServeError.read(path: path, reason: "ended early") }
                total += read
            }
            return total
        }
        position += count
        return buffer
    }

    func close() { closeDescriptor(descriptor) }
}

private func systemOpen(_ path: UnsafePointer<CChar>, _ flags: Int32) -> Int32 { open(path, flags) }
private func closeDescriptor(_ descriptor: Int32) { _ = close(descriptor) }
