import CBeneath
import Foundation
import MirrorCore
public import MirrorSearch
public import MirrorSite
import NIOCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A mirrored folder's files. A path is opened beneath the folder's own descriptor without
/// following any symbolic link, so nothing outside the folder can be reached whatever the
/// manifest or the folder holds (a symlink to `/etc` is refused, not followed): in one
/// `openat2` call where the kernel has it, else one component at a time with `O_NOFOLLOW`.
/// Files are handed out as descriptors: the kernel sends them (`sendfile`), as nginx does; the
/// descriptors of recently opened files are kept for a second (`DescriptorCache`).
public final class FolderFiles: SiteFiles {
    public let manifest: SiteManifest
    private let folder: String
    private let root: Int32
    /// Cleared once `openat2` is found missing (an old kernel, or a seccomp filter refusing it).
    private let opensBeneath: Atomic<Bool>
    private let recent: DescriptorCache

    /// Opens `folder` and reads its `.mirror/manifest.json`.
    public convenience init(folder: String) throws(ServeError) {
        try self.init(folder: folder, opensBeneath: true)
    }

    /// - Parameters:
    ///   - opensBeneath: false to walk the components even where `openat2` exists (the tests
    ///     check both ways).
    ///   - descriptors: how many descriptors of recently opened files are kept, and how long.
    ///   - now: the clock that times them.
    init(
        folder: String, opensBeneath: Bool, descriptors: (capacity: Int, validity: TimeAmount) = (1024, .seconds(1)),
        now: @escaping @Sendable () -> NIODeadline = { .now() }
    ) throws(ServeError) {
        self.folder = folder
        self.opensBeneath = Atomic(opensBeneath)
        recent = DescriptorCache(capacity: descriptors.capacity, validity: descriptors.validity, now: now)
        do { root = try PosixFile.open(folder, flags: O_RDONLY | O_DIRECTORY) } catch { throw .source(path: folder, reason: error.message) }
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

    public func searchIndex() throws(SearchError) -> SearchIndex {
        try SearchIndex.open(folder: folder, manifest: manifest)
    }

    public func openQuickly(_ path: String, range: Range<Int>) throws -> SiteFile? {
        try open(path, range: range)
    }

    public func open(_ path: String, range _: Range<Int>) throws -> SiteFile? {
        if let kept = recent.open(path) { return .descriptor(kept.handle, fileSize: kept.size) }
        // By bytes: a mark after a `/` makes one `Character` with it, and a component split on
        // `Character`s would hold a `/` that `openat` follows through a symbolic link.
        let components = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map(Substring.init)
        guard components.allSatisfy(Self.isPlainName) else { return nil }
        let descriptor = openBeneath(path, components)
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            closeDescriptor(descriptor)
            return nil
        }
        recent.keep(descriptor, size: Int(status.st_size), for: path)
        return .descriptor(NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: descriptor), fileSize: Int(status.st_size))
    }

    /// The file's descriptor, or -1: with `openat2` while the kernel has it, else by `walk`.
    private func openBeneath(_ path: String, _ components: [Substring]) -> Int32 {
        // Non-blocking: opening a FIFO put there must not stall the event loop (it is refused after).
        let flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
        if opensBeneath.load(ordering: .relaxed) {
            let descriptor = path.withCString { mirror_open_beneath(root, $0, flags) }
            guard descriptor < 0 && (errno == ENOSYS || errno == EPERM) else { return descriptor }
            opensBeneath.store(false, ordering: .relaxed)
        }
        return walk(components, flags: flags)
    }

    /// Opens the file one folder at a time, refusing a symbolic link at each step; -1 when it fails.
    private func walk(_ components: [Substring], flags: Int32) -> Int32 {
        var directory = root
        defer { if directory != root { closeDescriptor(directory) } }
        for component in components.dropLast() {
            let next = String(component).withCString { openat(directory, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
            guard next >= 0 else { return -1 }
            if directory != root { closeDescriptor(directory) }
            directory = next
        }
        return String(components.last!).withCString { openat(directory, $0, flags) }
    }

    /// A name that stays inside its folder: not empty, `.` or `..`, no NUL.
    private static func isPlainName(_ name: Substring) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.utf8.contains(0)
    }
}

private func closeDescriptor(_ descriptor: Int32) { _ = close(descriptor) }
