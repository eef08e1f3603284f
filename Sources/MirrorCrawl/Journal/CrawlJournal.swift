import Foundation
import MirrorCore
import MirrorLock
import MirrorSQLite

/// The durable state of a crawl folder, in SQLite at `.mirror/journal.sqlite`, in three parts
/// that commit through one log (`JournalLog`), so that a kill leaves a prefix of their records
/// in the order they were made: the URLs and what became of them (`urls`), each page's links,
/// references and text by body (`pages`), and the folder's saved resources and redirects
/// (`ledger`). What a kill loses is redone from the cache by the next crawl.
public final class CrawlJournal: Sendable {
    public let urls: URLRecords
    public let pages: PageRecords
    public let ledger: JournalLedger
    private let log: JournalLog
    /// Held open with an exclusive lock for the journal's lifetime: one crawl per folder.
    private let lock: Int32
    /// When the crawl this journal continues started (seconds since 1970): what the cache
    /// stored since then is this crawl's own, and is reused rather than fetched again.
    public let crawlStartedAt: Double
    /// Whether a crawl was started in this folder before (so `--resume` has something to continue;
    /// killed before its first commit, it continues from its seeds).
    public let hasCrawl: Bool

    /// Opens the journal of the crawl folder `folder` (created if needed); `fresh` starts a new
    /// crawl (the folder's saved resources are kept), otherwise the crawl it holds continues.
    /// Fails when another process is crawling into the same folder.
    public init(folder: String, fresh: Bool) throws {
        try FileManager.default.createDirectory(atPath: folder + "/.mirror", withIntermediateDirectories: true)
        do { lock = try PosixFile.open(folder + "/.mirror/journal.lock", flags: O_RDWR | O_CREAT) } catch {
            throw CrawlJournalError.cannotLock(folder: folder, reason: error.message)
        }
        guard flock(lock, LOCK_EX | LOCK_NB) == 0 else {
            close(lock)
            throw CrawlJournalError.busy(folder: folder)
        }
        let hadPages: Bool
        let started: Double?
        do {
            let database = try SQLiteDatabase(path: folder + "/.mirror/journal.sqlite")
            started = try JournalSchema.prepare(database, fresh: fresh)
            let readers = try (0..<max(1, ProcessInfo.processInfo.activeProcessorCount)).map { _ in
                let reader = try SQLiteDatabase(path: folder + "/.mirror/journal.sqlite")
                try reader.execute("PRAGMA cache_size=-512")  // KB: it reads one row at a time
                return Locked(reader)
            }
            hadPages = try database.statement("SELECT 1 FROM pages LIMIT 1").firstRow { _ in true } ?? false
            crawlStartedAt = (fresh ? nil : started) ?? Date().timeIntervalSince1970
            if fresh || started == nil {
                try database.statement("INSERT OR REPLACE INTO meta (key, value) VALUES ('started', ?)")
                    .run([.text(String(crawlStartedAt))])
            }
            log = JournalLog(database: database, readers: readers)
        } catch {
            close(lock)
            throw error
        }
        hasCrawl = started != nil
        urls = URLRecords(log: log)
        pages = PageRecords(log: log, hadPages: hadPages)
        ledger = JournalLedger(log: log)
    }

    deinit {
        close(lock)
    }

    /// Commits every pending record.
    public func flush() throws {
        try log.flush()
    }
}

/// Why a crawl folder cannot be opened.
public enum CrawlJournalError: Error, CustomStringConvertible {
    case busy(folder: String)
    case cannotLock(folder: String, reason: String)
    case unreadable(url: String)
    /// A record in a form a later version of mirror writes (or damaged in the byte that says so).
    case ofLaterVersion(url: String)

    public var description: String {
        switch self {
        case .busy(let folder): return "another mirror crawl is writing \(folder) (its .mirror/journal.lock is held)"
        case .cannotLock(let folder, let reason): return "cannot lock \(folder)/.mirror/journal.lock: \(reason)"
        case .unreadable(let url): return "the crawl journal's record of \(url) is damaged; \(Self.startAgain)"
        case .ofLaterVersion(let url):
            return "the crawl journal's record of \(url) is of a later version of mirror (or damaged); "
                + "crawl with that version, or \(Self.startAgain)"
        }
    }

    /// What a crawl into the folder can do without its journal: a new one starts from the folder's
    /// manifest (from nothing when it has none it can read).
    private static let startAgain =
        "remove the folder's .mirror/journal.sqlite (with its -wal and -shm files) to crawl again from its manifest"
}
