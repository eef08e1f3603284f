import Crypto
import Foundation
import MirrorCore
import ZIPFoundation

/// A WACZ 1.1.1 package being assembled in a work folder: the WARC, the CDXJ index (sorted on
/// disk), the page list, then `datapackage.json` with each file's size and SHA-256 and
/// `datapackage-digest.json` with the data package's own digest, zipped with the WARC stored
/// uncompressed (as the format requires, so a replayer can read records at their offsets).
final class WACZPackage {
    static let warcName = "data.warc.gz"
    static let version = "1.1.1"

    let folder: String
    private let created: Double
    private let software: String
    private let seeds: [String]
    private let index: SortedLines
    private let pages: HashedFile
    private var pageCount = 0
    private var mainPage: (url: String, date: WARCDate)?

    var warcPath: String { folder + "/" + Self.warcName }

    init(folder: String, created: Double, software: String, seeds: [String]) throws {
        self.folder = folder
        self.created = created
        self.software = software
        self.seeds = seeds
        index = SortedLines(folder: folder)
        pages = try HashedFile(path: folder + "/pages.jsonl")
        try pages.write(Array("{\"format\": \"json-pages-1.0\", \"id\": \"pages\", \"title\": \"All Pages\"}\n".utf8))
    }

    /// Indexes a written record, and lists it when it is a page.
    func add(_ record: WARCRecorder.Written) throws {
        try index.add(record.index.text)
        guard let title = record.pageTitle else { return }
        let id = record.recordID.filter { $0.isHexDigit }
        let fields = [("id", id), ("url", record.index.url), ("ts", record.index.date.text), ("title", title)]
        let line = "{" + fields.map { "\(CDXJLine.quoted($0.0)): \(CDXJLine.quoted($0.1))" }.joined(separator: ", ") + "}\n"
        try pages.write(Array(line.utf8))
        pageCount += 1
        if mainPage == nil || record.index.url == seeds.first { mainPage = (record.index.url, record.index.date) }
    }

    /// Writes the package to `path`; `warc` is the size and SHA-256 of the finished WARC.
    /// Returns how many pages it lists and the package's size.
    func write(to path: String, warc: (size: Int, sha256: String)) throws -> (pages: Int, bytes: Int) {
        let indexFile = try HashedFile(path: folder + "/index.cdx")
        try index.finish { try indexFile.write($0) }
        let files: [(entry: String, local: String, digest: (size: Int, sha256: String))] = [
            ("pages/pages.jsonl", pages.path, try pages.close()),
            ("indexes/index.cdx", indexFile.path, try indexFile.close()),
            ("archive/" + Self.warcName, warcPath, warc),
        ]
        let dataPackage = DataPackage(
            resources: files.map { file in
                DataPackage.Resource(
                    name: URL(fileURLWithPath: file.entry).lastPathComponent, path: file.entry,
                    hash: "sha256:" + file.digest.sha256, bytes: file.digest.size)
            },
            created: WARCDate(seconds: created).secondsText, software: software,
            mainPageURL: mainPage?.url, mainPageDate: mainPage?.date.secondsText)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let packageBytes = try encoder.encode(dataPackage)
        let digest = try encoder.encode(["path": "datapackage.json", "hash": "sha256:" + Hex.string(SHA256.hash(data: packageBytes))])

        let modified = Date(timeIntervalSince1970: created)
        do {
            let archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .create)
            for (entry, bytes) in [("datapackage.json", packageBytes), ("datapackage-digest.json", digest)] {
                try archive.addEntry(
                    with: entry, type: .file, uncompressedSize: Int64(bytes.count), modificationDate: modified,
                    compressionMethod: .deflate
                ) { position, size in
                    bytes.subdata(in: Int(position)..<Int(position) + size)
                }
            }
            for file in files {
                guard let handle = FileHandle(forReadingAtPath: file.local) else {
                    throw ArchiveError.io(path: file.local, message: "cannot read the file")
                }
                defer { try? handle.close() }
                // The WARC is stored: its records' offsets are offsets in the ZIP entry's bytes.
                let method: CompressionMethod = file.entry.hasPrefix("archive/") ? .none : .deflate
                try archive.addEntry(
                    with: file.entry, type: .file, uncompressedSize: Int64(file.digest.size),
                    modificationDate: modified, compressionMethod: method, bufferSize: 1 << 20
                ) { position, size in
                    try handle.seek(toOffset: UInt64(position))
                    return try handle.read(upToCount: size) ?? Data()
                }
            }
        } catch let error as ArchiveError {
            throw error
        } catch {
            throw ArchiveError.io(path: path, message: "\(error)")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        return (pageCount, size ?? 0)
    }

}
