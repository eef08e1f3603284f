import Foundation
import MirrorCore

/// `mirror export`: writes a cache's or a mirrored folder's responses as a WARC 1.1 file
/// (`.warc.gz`, one gzip member per record) or as a WACZ package (the WARC, a CDXJ index, a page
/// list and a data package). Memory stays flat however many responses there are: the source is
/// read a page at a time, bodies stream, and the index is sorted in runs on disk.
public struct ArchiveExporter {
    public struct Options: Sendable {
        /// Only URLs starting with one of these (all when empty).
        public var urlPrefixes: [String] = []
        /// Only responses received at or after this time (seconds since 1970).
        public var since: Double?
        /// The `software` of the warcinfo record and the WACZ data package.
        public var software = "mirror"
        /// gzip level of the records.
        public var level: Int32 = 6
        /// The clock, in seconds since 1970 (the warcinfo record's date, the WACZ's `created`).
        public var now: @Sendable () -> Double = { Date().timeIntervalSince1970 }

        public init() {}
    }

    /// What an export wrote.
    public struct Summary: Sendable, Codable {
        public var output: String
        /// Response records (first copies of their bodies) and revisit records (later copies).
        public var responses = 0
        public var revisits = 0
        /// Responses left out because their body no longer matches its digest.
        public var damaged: [String] = []
        /// HTML pages listed in a WACZ's `pages.jsonl`.
        public var pages = 0
        /// Size of the file written, and (for a WARC) its lower-case hex SHA-256.
        public var bytes = 0
        public var sha256: String?
    }

    public let options: Options

    public init(options: Options = Options()) {
        self.options = options
    }

    /// Writes `source`'s responses to the WARC file `path` (replacing it only once it is complete).
    @discardableResult
    public func exportWARC(_ source: ArchiveSource, to path: String) throws -> Summary {
        try Self.writeAtomically(path) { temporary in
            try writeWARC(source, to: temporary, filename: URL(fileURLWithPath: path).lastPathComponent) { _ in }
        }
    }

    /// Writes `source`'s responses to the WACZ package `path` (replacing it only once it is complete).
    @discardableResult
    public func exportWACZ(_ source: ArchiveSource, to path: String) throws -> Summary {
        try Self.writeAtomically(path) { temporary in
            let work = temporary + ".d"
            try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: work) }
            let package = try WACZPackage(folder: work, created: options.now(), software: options.software, seeds: source.seeds)
            var summary = try writeWARC(source, to: package.warcPath, filename: WACZPackage.warcName) { try package.add($0) }
            (summary.pages, summary.bytes) = try package.write(to: temporary, warc: (summary.bytes, summary.sha256 ?? ""))
            summary.sha256 = nil
            return summary
        }
    }

    private func writeWARC(
        _ source: ArchiveSource, to path: String, filename: String,
        _ written: (WARCRecorder.Written) throws -> Void
    ) throws -> Summary {
        let recorder = WARCRecorder(
            writer: try WARCWriter(path: path, level: options.level), filename: filename,
            sharedBodies: try source.sharedBodies())
        try recorder.writeInfo(software: options.software, seeds: source.seeds, date: WARCDate(seconds: options.now()))
        var summary = Summary(output: path)
        try source.forEachResponse { response in
            guard selects(response) else { return }
            do {
                let record = try recorder.write(response)
                if record.index.mime == "warc/revisit" { summary.revisits += 1 } else { summary.responses += 1 }
                try written(record)
            } catch ArchiveError.damagedBody(let url) {
                summary.damaged.append(url)
            }
        }
        let (bytes, sha256) = try recorder.writer.file.close()
        summary.bytes = bytes
        summary.sha256 = sha256
        return summary
    }

    private func selects(_ response: ArchivedResponse) -> Bool {
        if let since = options.since, response.responseTime < since { return false }
        return options.urlPrefixes.isEmpty || options.urlPrefixes.contains { response.url.hasPrefix($0) }
    }

    /// Runs `write` on a temporary file beside `path` and renames it to `path`: the result is
    /// whole or absent. The summary names `path`.
    private static func writeAtomically(_ path: String, _ write: (String) throws -> Summary) throws -> Summary {
        let url = URL(fileURLWithPath: path)
        let temporary =
            "\(url.deletingLastPathComponent().path)/.\(url.lastPathComponent).partial-\(ProcessInfo.processInfo.processIdentifier)"
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        var summary = try write(temporary)
        do { try PosixFile.rename(temporary, to: path) } catch { throw ArchiveError.io(path: error.path, message: error.message) }
        summary.output = path
        return summary
    }
}
