#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MirrorCore
import Synchronization

/// Creates the files of an offline folder the crash-safe way — written under `.mirror/tmp`,
/// then renamed into place — with plain POSIX calls: one file and one rename per write, no
/// fsync (a power loss is repaired from the cache by `--resume` or a re-crawl, as docs/crash-safety.md
/// says), and each parent folder made once per run. Foundation's `createFile` wrote a second
/// temporary file and synced it: one fsync per saved page.
final class AtomicFiles: Sendable {
    /// Emptied when a writer opens the folder (one crawl at a time writes a folder).
    let temporary: TemporaryFolder
    private let madeFolders = Mutex<Set<String>>([])

    init(temporaryFolder: String) {
        temporary = TemporaryFolder(path: temporaryFolder)
    }

    /// A new, empty temporary file: its path and an open descriptor to write it.
    func create() throws -> (path: String, descriptor: Int32) {
        let path = temporary.newPath()
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw SiteError.io(path: path, message: Self.lastError()) }
        return (path, descriptor)
    }

    /// Writes all of `bytes` to `descriptor` (the file at `path`).
    func write(_ bytes: [UInt8], to descriptor: Int32, path: String) throws {
        if let code = bytes.withUnsafeBytes({ FileWriting.writeAll(descriptor, $0) }) {
            throw SiteError.io(path: path, message: Self.lastError(code))
        }
    }

    /// Renames the temporary file `temporary` to `target`, making `target`'s folder first.
    func place(_ temporary: String, at target: String) throws {
        try makeParentFolder(of: target)
        guard rename(temporary, target) == 0 else {
            let message = Self.lastError()
            unlink(temporary)
            throw SiteError.io(path: target, message: message)
        }
    }

    /// Puts a hard link at `target` with `makeLink`, which links its argument to an existing file
    /// (false when it cannot): straight at `target` when that name is free, else at a temporary
    /// name renamed over it. A link appears whole, so a kill leaves the old file or the new one,
    /// as with `place`. False, with nothing changed, when `makeLink` cannot link.
    func placeLink(at target: String, _ makeLink: (String) -> Bool) throws -> Bool {
        try makeParentFolder(of: target)
        if makeLink(target) { return true }
        let temporary = temporary.newPath()
        guard access(target, F_OK) == 0, makeLink(temporary) else { return false }
        try place(temporary, at: target)
        return true
    }

    /// Writes `bytes` to a new temporary file and renames it to `path`: a kill leaves either
    /// the old file or the new one, and no stray temporary file outside `.mirror`.
    func writeAtomically(_ bytes: [UInt8], to path: String) throws {
        try writeAtomically(to: path) { try $0(bytes) }
    }

    /// `writeAtomically` for contents made in pieces: `produce` hands each to the function it gets.
    func writeAtomically(to path: String, _ produce: (_ write: ([UInt8]) throws -> Void) throws -> Void) throws {
        try place(try written(produce), at: path)
    }

    /// Replaces the file at `path`, which the folder can make again from what it keeps (a
    /// rewritten page: its original is in `.mirror/originals`), with a new file of `bytes`. The
    /// old name is removed before the new file is renamed in: ext4 writes a file renamed over
    /// another one to disk at once (`auto_da_alloc`, against empty files after a power loss),
    /// which was a third of the rewriting's time. A kill between the two leaves no file at `path`
    /// and no record of the new one, so the next crawl into the folder makes it again.
    func replace(_ bytes: [UInt8], at path: String) throws {
        let temporary = try written { try $0(bytes) }
        if unlink(path) != 0 && errno != ENOENT {
            let message = Self.lastError()
            unlink(temporary)
            throw SiteError.io(path: path, message: message)
        }
        try place(temporary, at: path)
    }

    /// `replace`, keeping the old file at `kept` (a rewritten page's original): it is renamed
    /// there, one call where a link and an unlink were two. False, with nothing changed, when it
    /// cannot be renamed there.
    func replace(_ bytes: [UInt8], at path: String, keepingOldAt kept: String) throws -> Bool {
        let temporary = try written { try $0(bytes) }
        guard rename(path, kept) == 0 else {
            unlink(temporary)
            return false
        }
        try place(temporary, at: path)
        return true
    }

    /// A new temporary file holding what `produce` hands out; removed again if it throws.
    private func written(_ produce: (_ write: ([UInt8]) throws -> Void) throws -> Void) throws -> String {
        let (temporary, descriptor) = try create()
        do {
            defer { close(descriptor) }
            try produce { try write($0, to: descriptor, path: temporary) }
        } catch {
            unlink(temporary)
            throw error
        }
        return temporary
    }

    private func makeParentFolder(of path: String) throws {
        if let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) { try makeFolder(String(path[..<slash])) }
    }

    /// `mkdir -p`, remembered: a folder made (or found) once is not asked about again.
    private func makeFolder(_ path: String) throws {
        guard !path.isEmpty, !madeFolders.withLock({ $0.contains(path) }) else { return }
        if mkdir(path, 0o755) != 0 && errno != EEXIST {
            guard errno == ENOENT, let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else {
                throw SiteError.io(path: path, message: Self.lastError())
            }
            try makeFolder(String(path[..<slash]))
            if mkdir(path, 0o755) != 0 && errno != EEXIST { throw SiteError.io(path: path, message: Self.lastError()) }
        }
        madeFolders.withLock { _ = $0.insert(path) }
    }

    private static func lastError(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }
}
