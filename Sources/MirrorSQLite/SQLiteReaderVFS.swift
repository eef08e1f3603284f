internal import CSQLite
import MirrorLock
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A read-only SQLite VFS, "mirror-reader", whose files are read through Swift closures: a
/// database inside an archive is queried in place, SQLite asking for the pages it needs and
/// nothing else. Its files never change (`SQLITE_IOCAP_IMMUTABLE`), so SQLite takes no locks
/// and looks for no journal; temporary files, time and randomness come from the default VFS.
enum SQLiteReaderVFS {
    /// What a file of this VFS reads through: its length, and a function that fills a buffer
    /// from an offset (the range always lies inside the file).
    final class File: Sendable {
        let size: Int
        let read: @Sendable (UnsafeMutableRawBufferPointer, Int) throws -> Void
        /// The error of the last read that failed, for the message SQLite's own code cannot carry.
        let failure = Locked<(any Error)?>(nil)

        init(size: Int, read: @escaping @Sendable (UnsafeMutableRawBufferPointer, Int) throws -> Void) {
            self.size = size
            self.read = read
        }
    }

    static let name = "mirror-reader"

    // Extended result codes, which are macros Swift does not import (SQLITE_IOERR | n << 8).
    private static let readFailed: Int32 = 10 | 1 << 8
    private static let shortRead: Int32 = 10 | 2 << 8
    private static let deleteFailed: Int32 = 10 | 10 << 8

    /// Files about to be opened, by the unique name their connection opens them under.
    private static let opening = Locked<[String: File]>([:])
    private static let opened = Atomic<Int>(0)

    /// Opens a read-only connection to `file`.
    static func connect(_ file: File) throws(SQLiteError) -> OpaquePointer {
        guard registered else { throw SQLiteError(code: SQLITE_ERROR, message: "cannot register the \(name) VFS") }
        let key = "\(name)-\(opened.add(1, ordering: .relaxed).newValue)"
        opening.withLock { $0[key] = file }
        defer { _ = opening.withLock { $0.removeValue(forKey: key) } }
        var connection: OpaquePointer?
        let code = sqlite3_open_v2(key, &connection, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, name)
        guard code == SQLITE_OK, let connection else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(connection)
            throw SQLiteError(code: code, message: message)
        }
        return connection
    }

    /// Registered once, for the life of the process (SQLite keeps the pointer).
    private static let registered: Bool = {
        guard let fallback = sqlite3_vfs_find(nil) else { return false }
        let vfs = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
        vfs.initialize(to: sqlite3_vfs())
        vfs.pointee.iVersion = 1
        // Room for the default VFS's files too: it makes the temporary files a large sort spills to.
        vfs.pointee.szOsFile = max(
            Int32(MemoryLayout<sqlite3_file>.stride + MemoryLayout<UnsafeRawPointer>.size),
            fallback.pointee.szOsFile)
        vfs.pointee.mxPathname = 512
        vfs.pointee.zName = UnsafePointer(strdup(name))
        vfs.pointee.pAppData = UnsafeMutableRawPointer(fallback)
        vfs.pointee.xOpen = { vfs, path, file, flags, outFlags in
            guard let file else { return SQLITE_CANTOPEN }
            guard let path else {
                // A temporary file (no name): the default VFS's.
                let fallback = defaultVFS(vfs)
                return fallback.pointee.xOpen(fallback, nil, file, flags, outFlags)
            }
            file.pointee.pMethods = nil
            guard let found = opening.withLock({ $0[String(cString: path)] }) else { return SQLITE_CANTOPEN }
            SQLiteReaderVFS.context(of: file).initializeMemory(
                as: UnsafeRawPointer.self,
                to: UnsafeRawPointer(Unmanaged.passRetained(found).toOpaque()))
            file.pointee.pMethods = UnsafePointer(methods)
            outFlags?.pointee = SQLITE_OPEN_READONLY
            return SQLITE_OK
        }
        vfs.pointee.xDelete = { _, _, _ in deleteFailed }
        // No journal or WAL file exists beside a file of this VFS.
        vfs.pointee.xAccess = { _, _, _, result in
            result?.pointee = 0
            return SQLITE_OK
        }
        vfs.pointee.xFullPathname = { _, path, count, output in
            guard let path, let output, count > 0 else { return SQLITE_CANTOPEN }
            let length = min(strlen(path), Int(count) - 1)
            output.update(from: path, count: length)
            output[length] = 0
            return SQLITE_OK
        }
        vfs.pointee.xRandomness = { vfs, count, output in
            let fallback = defaultVFS(vfs)
            return fallback.pointee.xRandomness(fallback, count, output)
        }
        vfs.pointee.xSleep = { vfs, microseconds in
            let fallback = defaultVFS(vfs)
            return fallback.pointee.xSleep(fallback, microseconds)
        }
        vfs.pointee.xCurrentTime = { vfs, time in
            let fallback = defaultVFS(vfs)
            return fallback.pointee.xCurrentTime(fallback, time)
        }
        vfs.pointee.xGetLastError = { _, _, _ in 0 }
        return sqlite3_vfs_register(vfs, 0) == SQLITE_OK
    }()

    private static func defaultVFS(_ vfs: UnsafeMutablePointer<sqlite3_vfs>?) -> UnsafeMutablePointer<sqlite3_vfs> {
        vfs!.pointee.pAppData.assumingMemoryBound(to: sqlite3_vfs.self)
    }

    /// Where a file's `File` is kept: right after SQLite's own `sqlite3_file` header.
    private static func context(of file: UnsafeMutablePointer<sqlite3_file>) -> UnsafeMutableRawPointer {
        UnsafeMutableRawPointer(file) + MemoryLayout<sqlite3_file>.stride
    }

    private static func file(_ file: UnsafeMutablePointer<sqlite3_file>?) -> File {
        Unmanaged<File>.fromOpaque(context(of: file!).load(as: UnsafeRawPointer.self)).takeUnretainedValue()
    }

    /// The error the last failed read of `connection`'s main file met, if any.
    static func lastFailure(of connection: OpaquePointer) -> (any Error)? {
        var handle: UnsafeMutableRawPointer?
        guard sqlite3_file_control(connection, "main", SQLITE_FCNTL_FILE_POINTER, &handle) == SQLITE_OK, let handle else { return nil }
        let file = handle.assumingMemoryBound(to: sqlite3_file.self)
        guard file.pointee.pMethods == UnsafePointer(methods) else { return nil }
        return self.file(file).failure.withLock { $0 }
    }

    /// Filled once, then only read (by SQLite, from any thread).
    nonisolated(unsafe) private static let methods: UnsafeMutablePointer<sqlite3_io_methods> = {
        let methods = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
        methods.initialize(to: sqlite3_io_methods())
        methods.pointee.iVersion = 1
        methods.pointee.xClose = { file in
            Unmanaged<File>.fromOpaque(context(of: file!).load(as: UnsafeRawPointer.self)).release()
            return SQLITE_OK
        }
        methods.pointee.xRead = { handle, buffer, count, offset in
            let file = SQLiteReaderVFS.file(handle)
            guard let buffer, count >= 0, offset >= 0 else { return readFailed }
            let available = max(0, min(Int(count), file.size - Int(offset)))
            do {
                if available > 0 { try file.read(UnsafeMutableRawBufferPointer(start: buffer, count: available), Int(offset)) }
            } catch {
                file.failure.withLock { $0 = error }
                return readFailed
            }
            guard available == Int(count) else {
                // SQLite wants the rest zeroed when a read ends past the file.
                (buffer + available).initializeMemory(as: UInt8.self, repeating: 0, count: Int(count) - available)
                return shortRead
            }
            return SQLITE_OK
        }
        methods.pointee.xWrite = { _, _, _, _ in SQLITE_READONLY }
        methods.pointee.xTruncate = { _, _ in SQLITE_READONLY }
        methods.pointee.xSync = { _, _ in SQLITE_OK }
        methods.pointee.xFileSize = { handle, size in
            size?.pointee = sqlite3_int64(SQLiteReaderVFS.file(handle).size)
            return SQLITE_OK
        }
        methods.pointee.xLock = { _, _ in SQLITE_OK }
        methods.pointee.xUnlock = { _, _ in SQLITE_OK }
        methods.pointee.xCheckReservedLock = { _, result in
            result?.pointee = 0
            return SQLITE_OK
        }
        methods.pointee.xFileControl = { _, _, _ in SQLITE_NOTFOUND }
        methods.pointee.xSectorSize = { _ in 4096 }
        methods.pointee.xDeviceCharacteristics = { _ in SQLITE_IOCAP_IMMUTABLE }
        return methods
    }()
}
