import Crypto
import Foundation
public import Logging
import MirrorCore
import MirrorSQLite
public import NIOHTTP1

/// The persistent cache: an SQLite index (WAL) over content-addressed body files.
///
/// Layout of the folder:
///
///     index.sqlite          one row per entry and per body
///     bodies/ab/abcd…       bodies named by their SHA-256, each stored once
///     log/<pid>-<n>.log     the entries' metadata, appended as they are stored (`EntryLog`)
///     tmp/0 … tmp/f/        bodies being written (16 folders: `TemporaryFolder`)
///
/// Writes: a body streams into a file of `tmp/` while hashed, is renamed to its digest, its
/// metadata appended to the store's segment of the entry log, and only then the index row
/// committed (at once, or with its group: `Configuration.groupCommit`) — so after `kill -9` at
/// any moment every committed entry is whole and no partial body is ever indexed, and the
/// entries of a group a kill kept from committing are indexed by the next store to open the folder.
/// Every write goes through `IndexWriter`, whose group commits while stores and lookups go on (a
/// lookup of one of its URLs waits for it); lookups read the committed rows on another connection.
/// Durability: no fsync per entry (it would cost more than the download); `synchronize()`
/// flushes the file system and checkpoints the WAL, and the crawler calls it at the end.
/// After a power loss an entry whose body did not reach the disk fails its digest check
/// on read and is dropped, never served.
///
/// Several processes may use one folder at once: SQLite's WAL coordinates the index, body
/// files are immutable once renamed, and a reader keeps an open body file readable even if
/// another process evicts it.
public final class CacheStore: Sendable {
    public let directory: String
    public let configuration: Configuration
    let reader: IndexReader
    let writer: IndexWriter
    let memory: MemoryTier
    private let checked = CheckedBodies()
    /// Where bodies are written before they are renamed to their digest.
    let temporary: TemporaryFolder
    let logger: Logger

    var indexPath: String { directory + "/index.sqlite" }

    /// Opens (creating if needed) the cache in `directory`.
    public init(
        directory: String, configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "mirror.cache")
    ) throws {
        self.directory = directory
        self.configuration = configuration
        self.logger = logger
        temporary = TemporaryFolder(path: directory + "/tmp")
        try Self.makeLayout(directory)
        let adopted = try Self.adoptLegacyMetadata(directory)
        if adopted > 0 { logger.notice("moved \(adopted) entries' metadata files into the entry log") }
        do { try temporary.create() } catch { throw CacheError.io(error) }
        let indexPath = directory + "/index.sqlite"
        let indexWasLost = !PosixFile.exists(indexPath)
        let memory = MemoryTier(capacity: configuration.memoryCapacity, maxBodySize: configuration.memoryMaxBodySize)
        self.memory = memory
        writer = IndexWriter(
            connection: try Self.openIndex(indexPath), limits: configuration.groupCommit,
            logFolder: Self.logFolder(in: directory), now: configuration.now
        ) { digests in
            Self.deleteBodies(digests, in: directory, memory: memory)
        }
        let connection = try Self.openIndex(indexPath)
        try? connection.database.execute("PRAGMA cache_size=-1024")  // KB: lookups read a row at a time
        reader = IndexReader(connection: connection, now: configuration.now)
        if indexWasLost {
            let recovered = try rebuildIndex()
            if recovered > 0 { logger.notice("the cache index was missing; rebuilt \(recovered) entries from the entry log") }
        }
        let recovered = try recoverAbandonedGroups()
        if recovered > 0 { logger.info("indexed \(recovered) entries that a killed writer stored but had not committed") }
    }

    /// A group not committed yet commits now (a writer that forgot `synchronize()`).
    deinit {
        _ = try? writer.commitAll()
    }

    static func openIndex(_ path: String) throws -> CacheIndex {
        do {
            let index = try CacheIndex(path: path)
            _ = try index.totalBodyBytes()  // reads a page: a damaged file fails here, not later
            return index
        } catch let error as SQLiteError {
            throw error.isCorruption
                ? CacheError.corruptIndex(path: path, message: error.message)
                : CacheError.io(path: path, message: error.description)
        }
    }

    // MARK: Reading

    /// The stored response for `url` whose Vary fields match `request`, if any; with
    /// `credentials` (the fingerprint of those the request carries), only one private to them.
    public func entry(for url: String, request: HTTPHeaders, credentials: String? = nil) throws -> CacheEntry? {
        try entries(for: url).first { entry in
            CachePolicy.varyKey(responseHeaders: entry.headers, request: request, credentials: credentials) == entry.varyKey
        }
    }

    /// Every stored variant of `url`.
    public func entries(for url: String) throws -> [CacheEntry] {
        // An entry of a group not committed yet: its rows are read once they are.
        while writer.isUncommitted(url: url) { _ = try writer.commitAll() }
        return try reader.entries(url: url)
    }

    /// The body of `entry`, checked against its digest. A missing or damaged body drops
    /// the entry (and logs it) and returns nil: the caller treats it as a miss.
    public func body(of entry: CacheEntry) -> ResponseBody? {
        recordAccess(entry)
        if let bytes = memory.get(entry.digest) { return ResponseBody(bytes: bytes) }
        let path = bodyPath(entry.digest)
        if entry.size <= configuration.memoryMaxBodySize && !checked.contains(entry.digest) {
            // Small and never checked: read whole, checked, and kept in memory.
            var stamp: FileStamp?
            guard let bytes = try? FileReading.contents(of: path, expectedSize: entry.size, stamp: &stamp), bytes.count == entry.size,
                Hex.string(SHA256.hash(data: bytes)) == entry.digest
            else {
                dropDamaged(entry)
                return nil
            }
            if let stamp { checked.remember(entry.digest, stamp) }
            memory.put(entry.digest, bytes)
            return ResponseBody(bytes: bytes)
        }
        guard PosixFile.size(atPath: path) == entry.size else {
            dropDamaged(entry)
            return nil
        }
        return ResponseBody(
            file: BodyFile(
                path: path, size: entry.size, digest: entry.digest, isTemporary: false,
                checked: checked
            ) { [weak self] in self?.dropDamaged(entry) })
    }

    /// Gives the stored body of `entry` a second name, `path` (a hard link), once its bytes are
    /// checked against the digest: a mirrored folder's file then needs no copy and no file of
    /// its own. Bodies are never written again once stored, so the link stays valid when the
    /// entry is evicted. False, with nothing made at `path`, when the body is missing or damaged
    /// (a damaged one is dropped) or cannot be linked there (`path` exists, another file
    /// system): the caller writes the bytes itself.
    ///
    /// A body this process wrote or checked, unchanged since (its file's stamp, from one `stat`),
    /// is linked without being opened: the link names the file by its path either way.
    public func linkBody(of entry: CacheEntry, to path: String) -> Bool {
        let source = bodyPath(entry.digest)
        guard let stamp = PosixFile.stamp(atPath: source), stamp.size == Int64(entry.size) else { return false }
        if !checked.isChecked(entry.digest, stamp) {
            let file = BodyFile(
                path: source, size: entry.size, digest: entry.digest, isTemporary: false,
                checked: checked
            ) { [weak self] in self?.dropDamaged(entry) }
            guard file.isIntact() else { return false }
        }
        return link(source, path) == 0
    }

    /// Notes a use of `entry` for LRU eviction; written to the index in batches. Uses within a
    /// minute of the recorded one are not written at all: LRU needs no finer clock, and a hit
    /// then costs no write.
    public func recordAccess(_ entry: CacheEntry) {
        let now = configuration.now()
        guard now - entry.lastAccess >= 60 else { return }
        if let due = reader.noteAccess(entry, at: now) { writer.touch(due) }
    }

    // MARK: Writing

    /// A writer for a new body, streaming into the cache's temporary folder.
    public func makeBodyWriter(limit: Int = .max) throws -> BodyWriter {
        try BodyWriter(temporary: temporary, limit: limit, retainLimit: configuration.memoryMaxBodySize)
    }

    /// Stores a response whose body was written with `body`; replaces the variant with the same
    /// Vary key. With `credentials`, the entry is private to them (`entry(for:request:credentials:)`).
    @discardableResult
    public func store(
        url: String, method: String = "GET", request: HTTPHeaders, credentials: String? = nil,
        head: CachedResponseHead, body: BodyWriter
    ) throws -> CacheEntry {
        let varyKey = CachePolicy.varyKey(responseHeaders: head.headers, request: request, credentials: credentials) ?? ""
        return try store(url: url, method: method, varyKey: varyKey, head: head, body: body)
    }

    /// Stores a response under an already computed Vary key (reloading a bundle, where the
    /// original request is gone but its key was kept). Whatever stores a response comes here:
    /// its `Set-Cookie` fields are dropped (`CachePolicy.neverStored`).
    @discardableResult
    public func store(
        url: String, method: String = "GET", varyKey: String, head: CachedResponseHead,
        body: BodyWriter
    ) throws -> CacheEntry {
        let (digest, size, stamp) = body.finish()
        let entry = CacheEntry(
            id: Self.entryID(method: method, url: url, varyKey: varyKey), method: method, url: url, varyKey: varyKey,
            status: head.status, headers: Self.withoutSessions(head.headers), requestTime: head.requestTime,
            responseTime: head.responseTime, digest: digest, size: size, lastAccess: configuration.now())
        do {
            // An identical body stored before stays, and this one is dropped.
            if try body.place(at: bodyPath(digest)), let stamp { checked.rememberWritten(digest, stamp) }
        } catch {
            throw CacheError.io(error)
        }
        try commit(entry)
        if let bytes = body.retained, bytes.count == size { memory.put(digest, bytes) }
        return entry
    }

    /// Replaces the head of a stored entry after a 304 (the body stays). The row commits as a
    /// stored entry's does: at once, or with its group.
    @discardableResult
    public func updateHead(of entry: CacheEntry, to head: CachedResponseHead) throws -> CacheEntry {
        var updated = entry
        updated.status = head.status
        updated.headers = Self.withoutSessions(head.headers)
        updated.requestTime = head.requestTime
        updated.responseTime = head.responseTime
        updated.lastAccess = configuration.now()
        try commit(updated)
        return updated
    }

    /// `headers` without the fields that are never stored.
    private static func withoutSessions(_ headers: HTTPHeaders) -> HTTPHeaders {
        guard headers.contains(where: { CachePolicy.neverStored.contains($0.name.lowercased()) }) else { return headers }
        var kept = headers
        for name in CachePolicy.neverStored { kept.remove(name: name) }
        return kept
    }

    // MARK: Maintenance

    public func statistics() throws -> CacheStatistics {
        try withIndex { index in
            let counts = try index.counts()
            return CacheStatistics(
                entries: counts.entries, bodies: counts.bodies, bodyBytes: try index.totalBodyBytes(),
                capacityBytes: configuration.diskCapacity, directory: directory)
        }
    }

    /// Every entry, in URL order.
    public func allEntries() throws -> [CacheEntry] {
        try withIndex(flushingAccess: true) { try $0.allEntries() }
    }

    /// Writes pending access times, compacts the entry log when most of it is outdated,
    /// checkpoints the WAL and flushes the file system, so everything stored so far survives a
    /// power loss.
    public func synchronize() throws {
        try writer.withIndex(touching: reader.takeAccess()) { index, log in
            try compactLogIfOutdated(index: index, log: log)
            try index.checkpoint()
        }
        PosixFile.syncFileSystem()
    }

    // MARK: Internals

    static func entryID(method: String, url: String, varyKey: String) -> String {
        Hex.string(SHA256.hash(data: Array("\(method)\n\(url)\n\(varyKey)".utf8)))
    }

    func bodyPath(_ digest: String) -> String { Self.bodyPath(digest, in: directory) }

    private static func bodyPath(_ digest: String, in directory: String) -> String { "\(directory)/bodies/\(digest.prefix(2))/\(digest)" }

    var logFolder: String { Self.logFolder(in: directory) }

    private static func logFolder(in directory: String) -> String { directory + "/log" }

    /// Logs `entry` and commits its row with its group (`IndexWriter.add`), then evicts if the
    /// bodies are above the high watermark.
    private func commit(_ entry: CacheEntry) throws {
        guard let total = try writer.add(entry), isAboveHighWatermark(total) else { return }
        try prune()
    }

    /// Commits the rows of the entries stored so far whose group has not committed yet
    /// (`Configuration.groupCommit`), for other processes to see them now.
    public func commitPending() throws {
        if isAboveHighWatermark(try writer.commitAll()) { try prune() }
    }

    /// Whether the bodies' `total` size is above the high watermark (the caller prunes).
    private func isAboveHighWatermark(_ total: Int) -> Bool {
        guard Double(total) > Double(configuration.diskCapacity) * configuration.highWatermark else { return false }
        logger.debug("cache above high watermark, evicting", metadata: ["bytes": "\(total)"])
        return true
    }

    func deleteBodies(_ digests: [String]) {
        Self.deleteBodies(digests, in: directory, memory: memory)
    }

    private static func deleteBodies(_ digests: [String], in directory: String, memory: MemoryTier) {
        for digest in digests {
            memory.remove(digest)
            try? PosixFile.remove(bodyPath(digest, in: directory))
        }
    }

    /// Runs `body` with the index once every entry stored so far has committed (`body` may write).
    /// With `flushingAccess`, pending access times are written first (for eviction and listings;
    /// lookups need not pay for it).
    func withIndex<T>(flushingAccess: Bool = false, _ body: (CacheIndex) throws -> T) throws -> T {
        try writer.withIndex(touching: flushingAccess ? reader.takeAccess() : [:]) { index, _ in try body(index) }
    }

    /// Creates the folders, including the 256 shards of `bodies/` (once, so storing an entry
    /// never has to create a folder).
    static func makeLayout(_ directory: String) throws(CacheError) {
        guard !PosixFile.exists(directory + "/bodies/ff") else { return }
        let folders = FolderMaker()
        for shard in 0..<256 {
            let name = String(shard, radix: 16)
            do { try folders.make("\(directory)/bodies/\(shard < 16 ? "0" : "")\(name)") } catch { throw .io(error) }
        }
    }
}
