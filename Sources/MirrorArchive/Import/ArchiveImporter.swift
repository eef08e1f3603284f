import Foundation
public import MirrorCache

/// `mirror cache import` of web archives: loads the responses of a WARC (plain or gzip, from
/// any writer: wget, Heritrix, warcio, browsertrix, mirror) or of every WARC in a WACZ into a
/// cache, so `mirror crawl --offline` and the replaying proxy serve the archived site. Records
/// it cannot use are counted by reason; a damaged or truncated file stops the import at that
/// record, and what came before it stays imported. Memory stays flat: bodies stream into the
/// cache (only the payload digests of imported responses are kept, for revisit records).
public struct ArchiveImporter {
    public let store: CacheStore
    /// The largest (decoded) body imported; larger responses are skipped.
    public let bodyLimit: Int

    public init(store: CacheStore, bodyLimit: Int = 4 << 30) {
        self.store = store
        self.bodyLimit = bodyLimit
    }

    /// Imports the WARC or WACZ at `path`. A damaged or truncated archive does not throw: the
    /// summary's `error` says where reading stopped. Throws for a file that is not an archive
    /// and for I/O failures.
    public func importArchive(_ path: String) throws -> ImportSummary {
        guard let format = ArchiveFormat.detect(path) else {
            if !FileManager.default.fileExists(atPath: path) { throw ArchiveError.io(path: path, message: "no such file") }
            throw ArchiveError.notAnArchive(path: path, reason: "it starts with neither WARC/, gzip nor ZIP bytes")
        }
        let importer = RecordImporter(store: store, bodyLimit: bodyLimit)
        do {
            switch format {
            case .warc: try readWARC(path, into: importer)
            case .wacz: try readWACZ(path, into: importer)
            }
        } catch let error as ArchiveError {
            switch error {
            case .corrupt, .truncated: importer.record(error.description)
            default: throw error
            }
        }
        try importer.finish()
        return importer.summary
    }

    private func readWARC(_ path: String, into importer: RecordImporter) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw ArchiveError.io(path: path, message: "cannot read the file") }
        defer { try? handle.close() }
        let parser = WARCRecordParser(path: path, handler: importer)
        let stream = WARCStream(parser: parser)
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            try stream.feed(Array(chunk))
        }
        try stream.finish()
    }

    /// Reads every `archive/*.warc(.gz)` of the package in name order (with `ZIPReader`). (The
    /// ZIP's CRC-32 is not checked: gzip's own and the records' digests are.)
    private func readWACZ(_ path: String, into importer: RecordImporter) throws {
        let archive = try ZIPReader(path: path)
        let warcs = archive.entries.filter { entry in
            !entry.isDirectory && entry.path.hasPrefix("archive/") && (entry.path.hasSuffix(".warc") || entry.path.hasSuffix(".warc.gz"))
        }.sorted { $0.path < $1.path }
        guard !warcs.isEmpty else { throw ArchiveError.notAnArchive(path: path, reason: "the WACZ holds no archive/*.warc.gz") }
        for entry in warcs {
            let parser = WARCRecordParser(path: "\(path) (\(entry.path))", handler: importer)
            let stream = WARCStream(parser: parser)
            do {
                try archive.read(entry) { try stream.feed($0) }
            } catch let error as ArchiveError {
                throw error
            } catch {
                throw ArchiveError.corrupt(
                    path: parser.path, offset: parser.recordOffset, reason: "the ZIP entry cannot be read (\(error))")
            }
            try stream.finish()
        }
    }
}
