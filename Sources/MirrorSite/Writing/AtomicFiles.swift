import MirrorCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Creates the files of an offline folder the crash-safe way — written under `.mirror/tmp`,
/// then renamed into place, or, replacing a file, written without a name and named in its
/// place — with plain POSIX calls (`PosixFile`): one file and one rename or link per
/// write, no fsync (a power loss is repaired from the cache by `--resume` or a re-crawl, as
/// docs/crash-safety.md says), and each parent folder made once per run. Foundation's
/// `createFile` wrote a second temporary file and synced it: one fsync per saved page.
final class AtomicFiles: Sendable {
    /// Emptied when a writer opens the folder (one crawl at a time writes a folder).
    let temporary: TemporaryFolder
    private let folders = FolderMaker()

    init(temporaryFolder: String) {
        temporary = TemporaryFolder(path: temporaryFolder)
    }

    /// A new, empty temporary file: its path and an open descriptor to write it.
    func create() throws -> (path: String, descriptor: Int32) {
        let path = temporary.newPath()
        do { return (path, try PosixFile.open(path, flags: O_WRONLY | O_CREAT | O_TRUNC)) } catch { throw SiteError.io(error) }
    }

    /// Writes all of `bytes` to `descriptor` (the file at `path`).
    func write(_ bytes: [UInt8], to descriptor: Int32, path: String) throws {
        do { try PosixFile.writeAll(descriptor, bytes, path: path) } catch { throw SiteError.io(error) }
    }

    /// Renames the temporary file `temporary` to `target`, making `target`'s folder first.
    func place(_ temporary: String, at target: String) throws {
        try makeParentFolder(of: target)
        do { try PosixFile.rename(temporary, to: target) } catch {
            try? PosixFile.remove(temporary)
            throw SiteError.io(error)
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
        guard PosixFile.exists(target), makeLink(temporary) else { return false }
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
    /// old name is removed before the new file is named: ext4 writes a file renamed over
    /// another one to disk at once (`auto_da_alloc`, against empty files after a power loss),
    /// which was a third of the rewriting's time. A kill between the two leaves no file at `path`
    /// and no record of the new one, so the next crawl into the folder makes it again.
    func replace(_ bytes: [UInt8], at path: String) throws {
        if let unnamed = try unnamedFile(holding: bytes, beside: path) {
            defer { close(unnamed) }
            try remove(path)
            return try name(unnamed, at: path)
        }
        let temporary = try written { try $0(bytes) }
        do { try PosixFile.remove(path) } catch {
            try? PosixFile.remove(temporary)
            throw SiteError.io(error)
        }
        try place(temporary, at: path)
    }

    /// `replace`, keeping the old file at `kept` (a rewritten page's original): linked there (or
    /// renamed, over a file of that name). False, with nothing changed, when it cannot be kept.
    func replace(_ bytes: [UInt8], at path: String, keepingOldAt kept: String) throws -> Bool {
        if let unnamed = try unnamedFile(holding: bytes, beside: path) {
            defer { close(unnamed) }
            if link(path, kept) != 0 {
                guard errno == EEXIST, (try? PosixFile.rename(path, to: kept)) != nil else { return false }
            }
            // Removed in every case: a rename between two names of one file changes neither.
            try remove(path)
            try name(unnamed, at: path)
            return true
        }
        let temporary = try written { try $0(bytes) }
        do { try PosixFile.rename(path, to: kept) } catch {
            try? PosixFile.remove(temporary)
            return false
        }
        try place(temporary, at: path)
        return true
    }

    /// A new file without a name (`UnnamedFile`) in the folder of `path`, holding `bytes`, open
    /// for `name`; nil where the system or the file system makes none. Named in place of a file,
    /// it needs no rename from `.mirror/tmp`: a rename between two folders takes a lock of the
    /// whole file system, which the cores rewriting pages waited for.
    private func unnamedFile(holding bytes: [UInt8], beside path: String) throws -> Int32? {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")),
            let descriptor = UnnamedFile.open(in: String(path[..<slash]))
        else { return nil }
        do { try write(bytes, to: descriptor, path: path) } catch {
            close(descriptor)
            throw error
        }
        return descriptor
    }

    /// Gives the file `unnamedFile` made the name `path` (which must be free).
    private func name(_ unnamed: Int32, at path: String) throws {
        do { try UnnamedFile.name(unnamed, at: path) } catch { throw SiteError.io(error) }
    }

    private func remove(_ path: String) throws {
        do { try PosixFile.remove(path) } catch { throw SiteError.io(error) }
    }

    /// A new temporary file holding what `produce` hands out; removed again if it throws.
    private func written(_ produce: (_ write: ([UInt8]) throws -> Void) throws -> Void) throws -> String {
        let (temporary, descriptor) = try create()
        do {
            defer { close(descriptor) }
            try produce { try write($0, to: descriptor, path: temporary) }
        } catch {
            try? PosixFile.remove(temporary)
            throw error
        }
        return temporary
    }

    /// Makes the folder `path` is in (each folder once per run).
    private func makeParentFolder(of path: String) throws {
        do { try folders.makeParent(of: path) } catch { throw SiteError.io(error) }
    }
}
