import Crypto
import Dispatch
import Foundation
import MirrorCore
public import MirrorHTML
import MirrorLock
import MirrorSQLite
public import MirrorSite

/// Makes a folder's search index, `.mirror/search.sqlite`, from the pages its crawl saved: every
/// HTML file saved with a 2xx status, a file several URLs share once, under the first of them
/// in byte order. Each page gives its title, its headings and its text (`HTMLText`), taken from
/// what the crawl read when it parsed the page or else read from the saved file.
///
/// The file is made anew, in one transaction, its pages numbered in the byte order of their
/// URLs, and renamed into place: the same pages always give the same bytes, so a bundle holding
/// the index stays reproducible, and a kill leaves the index before or after, never half. It
/// records a fingerprint of the pages it was made from and is only made again when that changes.
public enum SearchIndexBuilder {
    /// Bumped when what the file holds changes: an index of another version is made again.
    static let version = 3
    static let tokenizer = "unicode61 remove_diacritics 2"
    /// A saved resource, by URL.
    public typealias Page = (url: String, resource: SiteManifest.Resource)

    /// Brings `folder`'s index up to date with `pages` (a manifest's resources, in the byte
    /// order of their URLs), reading every page from its file.
    @discardableResult
    static func update(folder: String, pages: [Page]) throws(SearchError) -> SiteManifest.FileDigest {
        try update(folder: folder, slices: { slices(of: pages) }, knownTexts: noneKnown)
    }

    /// No page's text known: each is read from its file.
    private static let noneKnown: @Sendable ([Page]) -> [HTMLText?] = { Array(repeating: nil, count: $0.count) }

    /// The pages, `sliceSize` at a time.
    private static func slices(of pages: [Page]) -> () throws -> [Page] {
        var remaining = pages[...]
        return {
            defer { remaining = remaining.dropFirst(sliceSize) }
            return Array(remaining.prefix(sliceSize))
        }
    }

    /// Makes the index in `database` (an empty one) from `pages` (a manifest's resources, in the
    /// byte order of their URLs) whose files `read` gives by path.
    static func build(into database: SQLiteDatabase, pages: [Page], read: @Sendable (String) -> [UInt8]?) throws {
        let titles = try siteTitles(slices(of: pages)) { page in
            read(page.resource.path).flatMap { HTMLTitle.title(in: Array($0.prefix(titlePrefix)), contentType: page.resource.contentType) }
        }
        try build(
            into: database, pages: slices(of: pages), knownTexts: noneKnown, read: read, titles: titles,
            fingerprint: try fingerprint(slices(of: pages)))
    }

    /// Reads a saved file of `folder` by its path in the folder.
    static func files(of folder: String) -> @Sendable (String) -> [UInt8]? {
        { path in (try? FileReading.contents(of: folder + "/" + path)) ?? nil }
    }

    /// Brings `folder`'s index up to date with the pages `slices` hands over (each call makes a
    /// reader of every page, slice by slice in the byte order of their URLs, then empty slices);
    /// returns the index file's digest.
    /// - Parameter knownTexts: the text of each of a run of pages (in URL order) when the crawl
    ///   kept it; the others are read from their file.
    public static func update(
        folder: String, slices: () -> (() throws -> [Page]), knownTexts: @Sendable ([Page]) -> [HTMLText?]
    ) throws(SearchError) -> SiteManifest.FileDigest {
        let path = folder + "/" + SearchIndex.path
        do {
            // An index there is kept when it was made from these pages; a folder without one
            // (a first crawl) reads its pages once less.
            var known: String?
            if PosixFile.exists(path) {
                let fingerprint = try Self.fingerprint(slices())
                if let digest = try digest(ofIndexAt: path, fingerprint: fingerprint) { return digest }
                known = fingerprint
            }
            let partial = ".partial-"
            AbandonedFiles.remove(in: (path as NSString).deletingLastPathComponent, prefix: (path as NSString).lastPathComponent + partial)
            let temporary = path + partial + "\(ProcessInfo.processInfo.processIdentifier)"
            try? PosixFile.remove(temporary)
            defer { try? PosixFile.remove(temporary) }
            // The titles are read from the indexed pages, the fingerprint's pages.
            var made = Fingerprint()
            let titles = try siteTitles(slices(), each: { if known == nil { made.add($0) } }) { page in
                guard let start = try? FileReading.prefix(of: folder + "/" + page.resource.path, upTo: titlePrefix) else { return nil }
                return HTMLTitle.title(in: start, contentType: page.resource.contentType)
            }
            let fingerprint = known ?? made.value
            // Closed before it is renamed into place.
            try build(
                into: SQLiteDatabase(path: temporary), pages: slices(), knownTexts: knownTexts, read: files(of: folder), titles: titles,
                fingerprint: fingerprint)
            do { try PosixFile.rename(temporary, to: path) } catch { throw SearchError.unusable("cannot write \(error)") }
            guard let digest = try digest(ofIndexAt: path, fingerprint: fingerprint) else {
                throw SearchError.unusable("the index written to \(path) cannot be read back")
            }
            return digest
        } catch let error as SearchError {
            throw error
        } catch {
            throw SearchError.unusable("cannot index \(folder): \(error)")
        }
    }

    static let sliceSize = 1_000
    /// Pages whose texts are held at once while they go into the index (read on every core when
    /// the crawl did not keep them).
    private static let textGroup = 32

    private static func isIndexed(_ resource: SiteManifest.Resource) -> Bool {
        (200..<300).contains(resource.status) && resource.kind == .html
    }

    /// What the index is made from, hashed: each indexed page's URL, file, body digest and type
    /// (the body's, not the saved file's: rewriting its links leaves a page's text as it is).
    private struct Fingerprint {
        private var hash = SHA256()

        init() { hash.update(data: Array("mirror search index \(version)\n".utf8)) }

        mutating func add(_ page: Page) {
            let resource = page.resource
            hash.update(data: Array("\(page.url)\t\(resource.path)\t\(resource.sha256)\t\(resource.contentType ?? "")\n".utf8))
        }

        var value: String { Hex.string(hash.finalize()) }
    }

    private static func fingerprint(_ next: () throws -> [Page]) throws -> String {
        var fingerprint = Fingerprint()
        while case let slice = try next(), !slice.isEmpty {
            for page in slice where isIndexed(page.resource) { fingerprint.add(page) }
        }
        return fingerprint.value
    }

    /// Bytes of a page read for its title: titles come early.
    private static let titlePrefix = 8 << 10

    /// The titles of every page, to find the parts that name the site: each slice's read from
    /// their starts by `title` on every core, and noted in order. `each` is given every page first.
    private static func siteTitles(
        _ next: () throws -> [Page], each: (Page) -> Void = { _ in }, title: @Sendable (Page) -> String?
    ) throws -> SiteTitles {
        var titles = SiteTitles()
        while case let slice = try next(), !slice.isEmpty {
            let pages = slice.filter { isIndexed($0.resource) }
            pages.forEach(each)
            for (page, found) in zip(pages, pages.flatMapRunsOnEveryCore(of: 16) { $0.map(title) }) {
                if let found { titles.note(found, path: page.resource.path) }
            }
        }
        return titles
    }

    /// The digest of the index at `path` when it was made from pages of this fingerprint.
    private static func digest(ofIndexAt path: String, fingerprint: String) throws -> SiteManifest.FileDigest? {
        let made = try? SQLiteDatabase(path: path, readOnly: true).statement("SELECT value FROM meta WHERE key = 'fingerprint'")
            .firstRow([]) { $0.string(0) }
        // Read (for its digest) only when it is the index wanted, a piece at a time: a large
        // site's index is tens of megabytes.
        guard made == fingerprint else { return nil }
        var hash = SHA256()
        var size = 0
        let found = try? FileReading.forEachPiece(of: path) { piece in
            hash.update(bufferPointer: piece)
            size += piece.count
        }
        guard found == true else { return nil }
        return SiteManifest.FileDigest(sha256: Hex.string(hash.finalize()), size: size)
    }

    private static func build(
        into database: SQLiteDatabase, pages next: () throws -> [Page], knownTexts: @Sendable ([Page]) -> [HTMLText?],
        read: @Sendable (String) -> [UInt8]?, titles: SiteTitles, fingerprint: String
    ) throws {
        // A file of its own, renamed into place when whole (or memory): no journal to keep, no fsync mid-way.
        // Pages of 2 KiB (FTS5's leaves sized to fit): each table's last page is half as large,
        // which is a tenth of a small site's index, for 1.5 % more on a large one.
        try database.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA page_size = 2048")
        try database.execute(
            """
            CREATE VIRTUAL TABLE words USING fts5(title, headings, names, body, content = '', tokenize = '\(tokenizer)');
            CREATE TABLE pages (row INTEGER PRIMARY KEY, path TEXT NOT NULL, url TEXT NOT NULL, title TEXT NOT NULL, type TEXT NOT NULL);
            CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
            PRAGMA user_version = \(version);
            """)
        // No merging of segments while the pages go in (a third of the time); FTS5 still merges
        // when a level holds too many, so a large site's queries stay fast. Up to 2 MB of words
        // are held before they are written as a segment (FTS5's default is 1): 4 % smaller on
        // python3.11-doc. 8 MB made that index 4 % smaller again, but its pending words took
        // 15-20 MB more memory at 100,000 pages.
        for (option, value) in [("automerge", 0), ("hashsize", 2 << 20), ("pgsz", 2000)] {
            try database.execute("INSERT INTO words (words, rank) VALUES ('\(option)', \(value))")
        }
        try database.transaction {
            let addPage = try database.statement("INSERT INTO pages (row, path, url, title, type) VALUES (?, ?, ?, ?, ?)")
            let addWords = try database.statement("INSERT INTO words (rowid, title, headings, names, body) VALUES (?, ?, ?, ?, ?)")
            var row: Int64 = 0
            /// A file several URLs share is indexed once, under the first.
            var files = Set<String>()
            while case let slice = try next(), !slice.isEmpty {
                let pages = slice.filter { isIndexed($0.resource) && files.insert($0.resource.path).inserted }
                // A group's texts at a time (a page's text can be a megabyte), each group's found
                // while the one before goes into the index: FTS5 takes one core, finding the
                // texts (the journal, decoding, reading files) another.
                let groups = stride(from: 0, to: pages.count, by: textGroup).map { Array(pages[$0..<min($0 + textGroup, pages.count)]) }
                var found = groups.first.map { texts(of: $0, knownTexts: knownTexts, read: read) } ?? []
                for (index, group) in groups.enumerated() {
                    let next = groups.indices.contains(index + 1) ? groups[index + 1] : []
                    found = try overlapping(
                        {
                            for (page, text) in zip(group, found) {
                                guard let text else { continue }
                                row += 1
                                try addPage.run([
                                    .integer(row), .text(page.resource.path), .text(page.url), .text(text.title),
                                    .text(page.resource.contentType ?? ""),
                                ])
                                try addWords.run([
                                    .integer(row), .text(titles.indexed(text.title, path: page.resource.path)),
                                    .text(text.headings.joined(separator: "\n")), .text(text.names), .text(text.body),
                                ])
                            }
                        }, with: { texts(of: next, knownTexts: knownTexts, read: read) })
                }
            }
            try database.statement("INSERT INTO meta (key, value) VALUES ('fingerprint', ?)").run([.text(fingerprint)])
        }
    }

    /// Runs `work` while `other` is made: on two cores when the system has a thread free, else
    /// one after the other on this one (`concurrentPerform` never waits for a thread); returns
    /// what `other` made, once both are done.
    private static func overlapping<T: Sendable>(_ work: () throws -> Void, with other: @Sendable () -> T) throws -> T {
        // Unchecked: `concurrentPerform` returns once both have run, and `work` runs once, on one
        // thread, as does what records its failure.
        nonisolated(unsafe) let work = work
        nonisolated(unsafe) var failure: (any Error)?
        let made = Locked<T?>(nil)
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            if index == 0 {
                do { try work() } catch { failure = error }
            } else {
                let value = other()
                made.withLock { $0 = value }
            }
        }
        if let failure { throw failure }
        return made.withLock { $0! }
    }

    /// The text of each page: the crawl's, or its file's read by libxml2 on every core (nil when
    /// the file is missing).
    private static func texts(of pages: [Page], knownTexts: @Sendable ([Page]) -> [HTMLText?], read: @Sendable (String) -> [UInt8]?)
        -> [HTMLText?]
    {
        var texts = knownTexts(pages)
        precondition(texts.count == pages.count, "knownTexts gives a text or nil for each page")
        let missing = texts.indices.filter { texts[$0] == nil }
        let found = missing.map { pages[$0] }.flatMapRunsOnEveryCore(of: 1) { run in
            run.map { page in read(page.resource.path).map { HTMLText.extract(from: $0, contentType: page.resource.contentType) } }
        }
        for (index, text) in zip(missing, found) { texts[index] = text }
        return texts
    }
}
