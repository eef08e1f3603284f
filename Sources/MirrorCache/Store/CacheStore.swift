import Crypto
import Foundation
import MirrorCore
public import Logging
import MirrorSQLite
public import NIOHTTP1
import Synchronization

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
/// A group commits on a connection of its own, outside the lock that stores and lookups take:
/// they go on while it commits (a lookup of one of its URLs waits for it). Lookups read the
/// committed rows on another connection.
/// Durability: no fsync per entry (it would cost more than the download); `synchronize()`
/// flushes the file system and checkpoints the WAL, and the crawler calls it at the end.
/// After a power loss an entry whose body did not reach the disk fails its digest check
/// on read and is dropped, never served.
///
/// Several processes may use one folder at once: SQLite's WAL coordinates the index, body
/// files are immutable once renamed, and a reader keeps an open body file readable even if
/// another process evicts it.
public final class CacheStore: Sendable {
    public struct Configuration: Sendable {
        /// Disk capacity for bodies; eviction starts above `highWatermark` of it.
        public var diskCapacity: Int = 4 << 30
        public var highWatermark = 0.95
        /// Eviction stops below this fraction of the capacity.
        public var lowWatermark = 0.90
        /// Memory for small hot bodies.
        public var memoryCapacity: Int = 32 << 20
        /// Bodies up to this size are kept in memory after a read.
        public var memoryMaxBodySize: Int = 256 << 10
        /// The clock, in seconds since the epoch (tests move it).
        public var now: @Sendable () -> Double = { Date().timeIntervalSince1970 }
        /// Commit index rows in groups instead of one transaction per entry (`eachEntry`). Until
        /// its group commits, an entry is seen by this store only; its metadata is in the store's
        /// `EntryLog`, from which the next store to open the folder indexes it if this one is killed.
        public var groupCommit = GroupCommit.eachEntry

        public init() {}

        /// How `mirror crawl` opens its cache (and `mirror-fetch-bench`, which times a crawl's
        /// parts). A crawl reads each body right after storing it and rarely again: a small
        /// memory tier serves that, and a larger one would only add to its footprint. Its index
        /// rows commit in groups (a transaction per response was an eighth of a crawl's CPU time
        /// on small pages); after a kill, the next open indexes the rest from its entry log.
        public static var crawl: Configuration {
            var configuration = Configuration()
            configuration.memoryCapacity = 2 << 20
            configuration.groupCommit = GroupCommit()
            return configuration
        }
    }

    /// How large or old a group of entries may grow before its rows commit.
    public struct GroupCommit: Sendable {
        public var entries: Int
        public var age: Duration

        public init(entries: Int = 512, age: Duration = .milliseconds(200)) {
            self.entries = entries
            self.age = age
        }

        /// Every entry's row commits as it is stored.
        public static let eachEntry = GroupCommit(entries: 1, age: .zero)
    }

    private struct State {
        /// The connection lookups read; every write goes through `writer`.
        var reader: CacheIndex
        var pendingAccess: [String: Double] = [:]
        var lastFlush: Double
        /// The entries of recently looked-up URLs, as the index has them: a hit then reads no
        /// row and decodes no headers. Emptied by any other use of the index (it may write), and
        /// when another process has committed (`CacheIndex.dataVersion`).
        var known: [String: [CacheEntry]] = [:]
        var knownVersion: Int64 = -1
        /// Stored entries whose rows commit with their group (`Configuration.groupCommit`).
        var pending = PendingEntries()
        /// The group whose rows are being committed: lookups of its URLs wait for the commit.
        var committing = PendingEntries()
        /// This store's segment of the entry log, made when it first writes.
        var log: EntryLog?
    }

    /// URLs in `State.known` at most (it is emptied when full).
    private static let knownLimit = 4096

    public let directory: String
    public let configuration: Configuration
    private let state: Mutex<State>
    /// The connection every write transaction uses, held for the whole transaction. Taken before
    /// `state` when both are held.
    private let writer: Mutex<CacheIndex>
    private let memory: MemoryTier
    private let checked = CheckedBodies()
    /// Where bodies are written before they are renamed to their digest.
    let temporary: TemporaryFolder
    private let logger: Logger

    var indexPath: String { directory + "/index.sqlite" }

    /// Opens (creating if needed) the cache in `directory`.
    public init(directory: String, configuration: Configuration = Configuration(),
                logger: Logger = Logger(label: "mirror.cache")) throws {
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
        writer = Mutex(try Self.openIndex(indexPath))
        let reader = try Self.openIndex(indexPath)
        try? reader.database.execute("PRAGMA cache_size=-1024")  // KB: lookups read a row at a time
        state = Mutex(State(reader: reader, lastFlush: configuration.now()))
        memory = MemoryTier(capacity: configuration.memoryCapacity, maxBodySize: configuration.memoryMaxBodySize)
        if indexWasLost {
            let recovered = try rebuildIndex()
            if recovered > 0 { logger.notice("the cache index was missing; rebuilt \(recovered) entries from the entry log") }
        }
        let recovered = try recoverAbandonedGroups()
        if recovered > 0 { logger.info("indexed \(recovered) entries that a killed writer stored but had not committed") }
    }

    /// A group not committed yet commits now (a writer that forgot `synchronize()`).
    deinit {
        _ = try? writer.withLock { try commitGroups(on: $0, all: true) }
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
        while true {
            let found = try state.withLock { state -> [CacheEntry]? in
                // An entry of a group not committed yet: its rows are read once they are.
                guard !state.pending.contains(url: url), !state.committing.contains(url: url) else { return nil }
                let version = try state.reader.dataVersion()
                if version != state.knownVersion {
                    state.known.removeAll(keepingCapacity: true)
                    state.knownVersion = version
                }
                if let entries = state.known[url] { return entries }
                let entries = try state.reader.entries(url: url)
                if state.known.count >= Self.knownLimit { state.known.removeAll(keepingCapacity: true) }
                state.known[url] = entries
                return entries
            }
            if let found { return found }
            _ = try writer.withLock { try commitGroups(on: $0, all: true) }
        }
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
                  Hex.string(SHA256.hash(data: bytes)) == entry.digest else {
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
        return ResponseBody(file: BodyFile(path: path, size: entry.size, digest: entry.digest, isTemporary: false,
                                           checked: checked) { [weak self] in self?.dropDamaged(entry) })
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
            let file = BodyFile(path: source, size: entry.size, digest: entry.digest, isTemporary: false,
                                checked: checked) { [weak self] in self?.dropDamaged(entry) }
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
        let due = state.withLock { state -> [String: Double]? in
            state.pendingAccess[entry.id] = now
            if let known = state.known[entry.url], let position = known.firstIndex(where: { $0.id == entry.id }) {
                state.known[entry.url]![position].lastAccess = now
            }
            guard now - state.lastFlush > 2 || state.pendingAccess.count > 2000 else { return nil }
            return takeAccess(&state)
        }
        if let due { writer.withLock { Self.writeAccess(due, on: $0) } }
    }

    // MARK: Writing

    /// A writer for a new body, streaming into the cache's temporary folder.
    public func makeBodyWriter(limit: Int = .max) throws -> BodyWriter {
        try BodyWriter(temporaryPath: temporary.newPath(), limit: limit, retainLimit: configuration.memoryMaxBodySize)
    }

    /// Stores a response whose body was written with `body`; replaces the variant with the same
    /// Vary key. With `credentials`, the entry is private to them (`entry(for:request:credentials:)`).
    @discardableResult
    public func store(url: String, method: String = "GET", request: HTTPHeaders, credentials: String? = nil,
                      head: CachedResponseHead, body: BodyWriter) throws -> CacheEntry {
        let varyKey = CachePolicy.varyKey(responseHeaders: head.headers, request: request, credentials: credentials) ?? ""
        return try store(url: url, method: method, varyKey: varyKey, head: head, body: body)
    }

    /// Stores a response under an already computed Vary key (reloading a bundle, where the
    /// original request is gone but its key was kept). Whatever stores a response comes here:
    /// its `Set-Cookie` fields are dropped (`CachePolicy.neverStored`).
    @discardableResult
    public func store(url: String, method: String = "GET", varyKey: String, head: CachedResponseHead,
                      body: BodyWriter) throws -> CacheEntry {
        let (digest, size, stamp) = body.finish()
        let entry = CacheEntry(
            id: Self.entryID(method: method, url: url, varyKey: varyKey), method: method, url: url, varyKey: varyKey,
            status: head.status, headers: Self.withoutSessions(head.headers), requestTime: head.requestTime,
            responseTime: head.responseTime, digest: digest, size: size, lastAccess: configuration.now())
        let target = bodyPath(digest)
        if PosixFile.size(atPath: target) != size {
            do { try PosixFile.rename(body.temporaryPath, to: target) } catch {
                try? PosixFile.remove(body.temporaryPath)
                throw CacheError.io(error)
            }
            if let stamp { checked.rememberWritten(digest, stamp) }
        } else {
            try? PosixFile.remove(body.temporaryPath)  // an identical body already stored is kept
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

    /// Removes every variant of `url`; returns how many entries went.
    @discardableResult
    public func remove(url: String) throws -> Int {
        let ids = try entries(for: url).map(\.id)
        try remove(ids: ids)
        return ids.count
    }

    /// Removes all entries.
    public func clear() throws {
        let digests = try withIndex { index -> [String] in
            let digests = try index.allDigests().map(\.digest)
            try index.database.transaction { try index.deleteAll() }
            return digests
        }
        try state.withLock { state in
            state.pendingAccess.removeAll()
            try state.log?.truncate()
            for path in EntryLog.segments(in: logFolder, sealedOnly: true) { try? PosixFile.remove(path) }
        }
        memory.removeAll()
        for digest in digests { try? PosixFile.remove(bodyPath(digest)) }
    }

    // MARK: Capacity

    /// Evicts least recently used entries until the bodies take at most `target` bytes
    /// (default: the low watermark), one entry at a time so no more goes than needed.
    /// Returns the number of entries evicted.
    @discardableResult
    public func prune(to target: Int? = nil) throws -> Int {
        let goal = target ?? Int(Double(configuration.diskCapacity) * configuration.lowWatermark)
        var evicted = 0
        while true {
            let (ids, orphans, total) = try withIndex(flushingAccess: true) { index -> ([String], [String], Int) in
                var total = try index.totalBodyBytes()
                guard total > goal else { return ([], [], total) }
                var ids: [String] = [], orphans: [String] = []
                try index.database.transaction {
                    for id in try index.leastRecentlyUsed(limit: 256) where total > goal {
                        let freed = try index.deleteEntry(id: id)
                        total -= freed.reduce(0) { $0 + $1.size }
                        ids.append(id)
                        orphans += freed.map(\.digest)
                    }
                }
                return (ids, orphans, total)
            }
            try logRemovals(ids)
            deleteBodies(orphans)
            evicted += ids.count
            if ids.isEmpty || total <= goal { return evicted }
        }
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
        try withCommittedState(flushingAccess: true) { index, log in
            try compactLogIfOutdated(index: index, log: log)
            try index.checkpoint()
        }
        PosixFile.syncFileSystem()
    }

    // MARK: Internals

    static func entryID(method: String, url: String, varyKey: String) -> String {
        Hex.string(SHA256.hash(data: Array("\(method)\n\(url)\n\(varyKey)".utf8)))
    }

    func bodyPath(_ digest: String) -> String { "\(directory)/bodies/\(digest.prefix(2))/\(digest)" }

    var logFolder: String { directory + "/log" }

    /// Appends `entry`'s metadata to the entry log, then commits its row with its group: at
    /// once, or when the group is due. When another thread is committing, it commits the group
    /// after its own, and this one goes on.
    private func commit(_ entry: CacheEntry) throws {
        let record = LogRecord.entry(entry).bytes
        let due = try state.withLock { state in
            try log(&state).append([record])
            return state.pending.add(entry, limits: configuration.groupCommit)
        }
        guard due, try writer.withLockIfAvailable({ try commitGroups(on: $0, all: false) }) == true else { return }
        try prune()
    }

    /// This store's segment of the entry log, made on first use (a store that only reads makes none).
    private func log(_ state: inout State) throws(CacheError) -> EntryLog {
        if let log = state.log { return log }
        let log = try EntryLog(folder: logFolder)
        state.log = log
        return log
    }

    /// Notes removed entries (their rows gone) in the entry log, so that a rebuilt index does
    /// not bring them back, and forgets their pending access times.
    private func logRemovals(_ ids: [String]) throws {
        guard !ids.isEmpty else { return }
        let time = configuration.now()
        try state.withLock { state in
            for id in ids { state.pendingAccess[id] = nil }
            try log(&state).append(ids.map { LogRecord.removed(id: $0, at: time).bytes })
            if state.pending.isEmpty && state.committing.isEmpty { state.log?.markCommitted() }
        }
    }

    /// Commits the rows of the entries stored so far whose group has not committed yet
    /// (`Configuration.groupCommit`), for other processes to see them now.
    public func commitPending() throws {
        if try writer.withLock({ try commitGroups(on: $0, all: true) }) { try prune() }
    }

    /// Commits the pending group on `writer` (whose lock the caller holds), again while one is
    /// due (`all`: while any is pending), each in a transaction run outside the state's lock. True
    /// when the bodies are then above the high watermark (the caller prunes, outside the locks).
    private func commitGroups(on writer: CacheIndex, all: Bool) throws -> Bool {
        while try commitGroup(on: writer, all: all, withState: { body in state.withLock { body(&$0) } }) {}
        let total = try writer.totalBodyBytes()
        guard Double(total) > Double(configuration.diskCapacity) * configuration.highWatermark else { return false }
        logger.debug("cache above high watermark, evicting", metadata: ["bytes": "\(total)"])
        return true
    }

    /// Commits the pending group's rows on `writer` (whose lock the caller holds) in one
    /// transaction, notes it in the entry log and deletes the bodies it left unused; false when
    /// there was none. `withState` runs its argument with the state: under the state's lock, so
    /// that stores and lookups go on during the transaction, or as it is when the caller holds
    /// that lock too. On failure the group goes back before what is pending, to be tried again.
    private func commitGroup(on writer: CacheIndex, all: Bool, withState: ((inout State) -> Void) -> Void) throws -> Bool {
        var taken: (entries: [CacheEntry], end: Int)?
        withState { state in
            guard all ? !state.pending.isEmpty : state.pending.isDue(configuration.groupCommit) else { return }
            swap(&state.pending, &state.committing)
            // Where the group's records end: records appended meanwhile are not committed with it.
            taken = (state.committing.entries, state.log?.recordsEnd ?? 0)
        }
        guard let taken else { return false }
        let orphans: [String]
        do {
            orphans = try writer.database.transaction {
                try writer.add(taken.entries.count, to: .logRecords)
                return try writer.upsert(taken.entries)
            }
        } catch {
            withState { state in
                state.pending.prepend(state.committing)
                state.committing.removeAll()
            }
            throw error
        }
        var unused: [String] = []
        withState { state in
            state.committing.removeAll()
            // With nothing pending, the records appended meanwhile are removals (whose rows went
            // before them): all of the log has committed.
            if state.pending.isEmpty { state.log?.markCommitted() } else { state.log?.markCommitted(through: taken.end) }
            state.known.removeAll(keepingCapacity: true)
            // A body that an entry stored meanwhile uses again stays.
            let used = Set(state.pending.entries.map(\.digest))
            unused = orphans.filter { !used.contains($0) }
        }
        deleteBodies(unused)
        return true
    }

    func remove(ids: [String]) throws {
        guard !ids.isEmpty else { return }
        let orphans = try withIndex { index in
            try index.database.transaction { try ids.flatMap { try index.deleteEntry(id: $0).map(\.digest) } }
        }
        try logRemovals(ids)
        deleteBodies(orphans)
    }

    private func deleteBodies(_ digests: [String]) {
        for digest in digests {
            memory.remove(digest)
            try? PosixFile.remove(bodyPath(digest))
        }
    }

    /// Drops an entry whose body is missing or damaged, and says so.
    func dropDamaged(_ entry: CacheEntry) {
        logger.warning("\(CacheError.corruptBody(url: entry.url, digest: entry.digest))")
        memory.remove(entry.digest)
        // Every entry sharing this body is damaged too.
        let ids = (try? withIndex { try $0.entryIDs(digest: entry.digest) }) ?? [entry.id]
        try? remove(ids: ids)
        try? PosixFile.remove(bodyPath(entry.digest))
    }

    /// The access times noted since the last write, for `writeAccess`.
    private func takeAccess(_ state: inout State) -> [String: Double] {
        let pending = state.pendingAccess
        state.pendingAccess.removeAll(keepingCapacity: true)
        state.lastFlush = configuration.now()
        return pending
    }

    private static func writeAccess(_ times: [String: Double], on writer: CacheIndex) {
        try? writer.database.transaction {
            for (id, time) in times { try writer.touch(id: id, at: time) }
        }
    }

    /// Runs `body` with the index, holding the lock, once the pending group has committed, and
    /// forgets the entries looked up before (`body` may change them). With `flushingAccess`,
    /// pending access times are written first (for eviction and listings; lookups need not pay for it).
    func withIndex<T>(flushingAccess: Bool = false, _ body: (CacheIndex) throws -> T) throws -> T {
        try withCommittedState(flushingAccess: flushingAccess) { index, _ in try body(index) }
    }

    /// `withIndex` with this store's segment of the entry log too, if it has one. Runs holding both
    /// locks, with nothing pending: `body` may rewrite the log.
    private func withCommittedState<T>(flushingAccess: Bool, _ body: (CacheIndex, EntryLog?) throws -> T) throws -> T {
        try writer.withLock { writer in
            try state.withLock { state in
                _ = try commitGroup(on: writer, all: true, withState: { $0(&state) })
                if flushingAccess && !state.pendingAccess.isEmpty { Self.writeAccess(takeAccess(&state), on: writer) }
                state.known.removeAll(keepingCapacity: true)
                return try body(writer, state.log)
            }
        }
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
