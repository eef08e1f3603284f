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
/// Files are handed out as descriptors: the kernel sends them (`sendfile`), as nginx does.
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

    public var opensQuickly: Bool { true }

    public func open(_ path: String, range _: Range<Int>) throws -> SiteFile? {
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
        // Non-blocking: opening a FIFO put there must not stall the event loop (it is refused below).
        let descriptor = String(components.last!).withCString {
            openat(directory, $0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        }
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            closeDescriptor(descriptor)
            return nil
        }
        return .descriptor(NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: descriptor), fileSize: Int(status.st_size))
    }

    /// A name that stays inside its folder: not empty, `.` or `..`, no NUL.
    private static func isPlainName(_ name: Substring) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.utf8.contains(0)
    }
}

private func systemOpen(_ path: UnsafePointer<CChar>, _ flags: Int32) -> Int32 { open(path, flags) }
private func closeDescriptor(_ descriptor: Int32) { _ = close(descriptor) }
