import Crypto
import Foundation
import MirrorCache
import MirrorCore

@testable import MirrorArchive
@testable import MirrorBundle
@testable import MirrorCompression
@testable import MirrorCrawl
@testable import MirrorSite

extension FuzzTargets {
    /// What files hold: others' bundles (tar, gzip members, seek table, manifest), WARC and WACZ,
    /// and the rows of a crawl journal a damaged disk gives back.
    static let archives: [FuzzTarget] = [bundle, manifest, seekTable, warc, wacz, journalRow]

    /// Small limits, so that the fuzzer's inputs reach them.
    static let bundleLimits = TarLimits(maxEntrySize: 64 << 10, maxTotalSize: 256 << 10, maxEntryCount: 64, maxExtendedHeaderSize: 4 << 10)

    static let bundle = FuzzTarget(
        "bundle", dictionary: "tar.dict",
        contract: "(the input, or its gzip when it is a tar stream) refused with a BundleError that leaves nothing behind, or unpacked "
            + "into the destination alone as regular files and "
            + "folders, each file listed in the manifest at its size, within the limits; read in place to the same outcome and bytes; "
            + "through its seek table to the same bytes or an error"
    ) { input in
        let folder = Scratch.empty("bundle")
        let path = folder + "/input.tar.gz"
        // An input that is not gzip is the tar stream of one, compressed here: mutations reach the tar layer.
        guard let bundle = input.starts(with: [0x1F, 0x8B]) ? input : try? GzipEncoder.compress(input, level: 1) else {
            violation("cannot compress \(input.count) bytes")
        }
        Scratch.write(bundle, to: path)
        let destination = folder + "/out"
        let unpacked: BundleUnpacker.Summary?
        let refusal: String?
        do {
            unpacked = try BundleUnpacker(limits: bundleLimits).unpack(path, to: destination)
            refusal = nil
        } catch {
            require(error is BundleError, "unpacking threw \(type(of: error)), not a BundleError: \(error)")
            unpacked = nil
            refusal = "\(error)"
        }
        let left = Scratch.listing(folder)
        var files: [String: [UInt8]] = [:]
        if let summary = unpacked {
            require(left == ["input.tar.gz", "out"], "unpacking wrote \(left) beside the destination")
            files = Scratch.files(under: destination)
            var total = 0
            for (file, bytes) in files {
                require(isSafeRelativePath(file), "unpacked \(file)")
                require(bytes.count <= bundleLimits.maxEntrySize, "\(file) is \(bytes.count) bytes, over the limit")
                total += bytes.count
                guard file != SiteManifest.path else { continue }
                let listed = summary.manifest.files[file]
                require(listed?.size == bytes.count, "\(file) is \(bytes.count) bytes, the manifest lists \(String(describing: listed))")
            }
            require(total <= bundleLimits.maxTotalSize, "the files add up to \(total) bytes, over the limit")
            require(files.count <= bundleLimits.maxEntryCount, "\(files.count) files, over the limit")
            require(files[SiteManifest.path] != nil, "a bundle without its manifest was unpacked")
            require(summary.files == files.count - 1, "the summary counts \(summary.files) files, \(files.count - 1) were written")
            for file in summary.manifest.files.keys { require(files[file] != nil, "\(file) is listed but was not unpacked") }
        } else {
            require(left == ["input.tar.gz"], "a refused bundle left \(left)")
        }

        // Read in place: the same checks, the same outcome, the same bytes.
        do {
            let archive = try BundleArchive(path: path, limits: bundleLimits)
            require(refusal == nil, "read in place, a bundle that unpacking refused (\(refusal ?? "")) was accepted")
            require(Set(archive.files.keys) == Set(files.keys), "read in place, it holds \(archive.files.keys.sorted())")
            for (file, bytes) in files {
                require(try archive.verifiedContents(of: file) == bytes, "read in place, \(file) has other bytes")
                let range = bytes.count / 3..<bytes.count - bytes.count / 4
                var part: [UInt8] = []
                require(try archive.read(file, range: range) { part += $0 }, "read in place, \(file) is missing")
                require(part == Array(bytes[range]), "read in place, bytes \(range) of \(file) differ")
            }
        } catch {
            require(error is BundleError, "reading in place threw \(type(of: error)), not a BundleError: \(error)")
            require(refusal == "\(error)", "read in place it was refused with '\(error)', unpacking gave '\(refusal ?? "success")'")
        }

        // Through the seek table alone: the unpacked bytes, or an error.
        guard unpacked != nil, let seekable = try? SeekableBundle.open(path: path) else { return }
        for (file, bytes) in files {
            guard let read = try? seekable.verifiedContents(of: file) else { continue }
            require(read == bytes, "through the seek table, \(file) has other bytes")
        }
    }

    static let manifest = FuzzTarget(
        "manifest",
        contract: "decoding is total; a manifest decoded, then encoded (by JSONEncoder, and by the manifest's own writer, to the same "
            + "bytes), decodes to an equal manifest"
    ) { input in
        let decoded: SiteManifest
        do {
            decoded = try SiteManifest.decode(input)
        } catch {
            require(!"\(error)".isEmpty, "refused without a reason")
            return
        }
        require((try? ManifestCheck.decode(input)) == decoded, "a bundle reads the manifest otherwise")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let encoded: [UInt8]
        do { encoded = Array(try encoder.encode(decoded)) } catch { violation("a decoded manifest does not encode: \(error)") }
        var written: [UInt8] = []
        do { try decoded.writeJSON { written += $0 } } catch { violation("a decoded manifest is not written: \(error)") }
        require(written == encoded, "the manifest's writer and JSONEncoder write other bytes")
        do {
            require(try SiteManifest.decode(encoded) == decoded, "encoded and decoded again, the manifest changed")
        } catch {
            violation("an encoded manifest is refused: \(error)")
        }
        _ = decoded.files
        for url in decoded.resources.keys.prefix(16) { _ = decoded.path(for: url) }
    }

    static let journalRow = FuzzTarget(
        "journal-row",
        contract: "a saved resource's row of the crawl journal is read or refused, never both a later version and read; a resource "
            + "read is written and read back the same; its header fields unpack, pack back to the same bytes of fields that are "
            + "packed, and the first value of several names read from the packed bytes is the unpacked fields' first"
    ) { input in
        let row = Array(input)
        guard let resource = StoredResource.decode(row) else { return }
        require(!StoredResource.isOfLaterVersion(row), "a row read is said to be of a later version")
        require(StoredResource.decode(StoredResource.encode(resource)) == resource, "written and read back, the resource changed")
        let headers = resource.record.headers
        var repacked = resource.record
        repacked.headers = headers
        // By bytes: Strings compare by canonical equivalence.
        func bytes(_ fields: [[String]]) -> [[[UInt8]]] { fields.map { $0.map { Array($0.utf8) } } }
        require(bytes(repacked.headers) == bytes(headers), "the header fields packed again read otherwise")
        require(HeaderFields.isPacked(repacked.packedFields), "what pack writes is refused")
        // Names compare with ASCII's case ignored only, as `HTTPHeaders.first(name:)` compares them.
        func folded(_ name: String) -> [UInt8] { name.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 } }
        let names = ["date", "ETag", "last-modified", "content-type"] + headers.prefix(4).compactMap(\.first)
        for name in names {
            let first = headers.first { $0.count == 2 && folded($0[0]) == folded(name) }
            require(resource.record.firstValue(named: name) == first?[1], "the first value of \(name) read from the packed bytes differs")
        }
    }

    static let seekTable = FuzzTarget(
        "seek-table", dictionary: "tar.dict",
        contract: "a seek table is refused or its members lie in order inside the archive and its files inside what they inflate to, "
            + "each read whole to its size and digest or refused; gzip inflates within its limit, member by member to the same bytes, "
            + "and any range read from its access points is those bytes"
    ) { input in
        let folder = Scratch.empty("seek-table")
        // The input as a bundle, and, from the first table form on, as a table framed as `mirror pack` frames one.
        checkSeekTable(input, at: folder + "/as-is")
        let archive: ArraySlice<UInt8>
        if let form = input.firstRange(of: seekTableForm) {
            archive = input[..<form.lowerBound]
            checkSeekTable(Array(archive) + framedSeekTable(input[form.lowerBound...], archiveEnd: archive.count), at: folder + "/framed")
        } else {
            archive = input[...]
        }
        checkGzip(Array(archive))
    }

    static let warc = FuzzTarget(
        "warc", dictionary: "warc.dict",
        contract: "records are read the same in any chunks, each block exactly its Content-Length; headers and response heads read back "
            + "from their serialised form; dates read back from their text; chunked decoding gives back what was encoded and never more "
            + "bytes than it was given"
    ) { input in
        let whole = readWARC([input[...]])
        let first = input.first.map { Int($0) * input.count / 256 } ?? 0
        let second = first + (input.count - first) / 2
        let pieces = readWARC([input[..<first], input[first..<second], input[second...]])
        require(whole.records == pieces.records, "chunked otherwise, the records differ")
        require(whole.failure == pieces.failure, "chunked otherwise, '\(whole.failure ?? "")' became '\(pieces.failure ?? "")'")
        for record in whole.records {
            checkWARCHeader(record.header)
            if let date = record.header["WARC-Date"] { checkWARCDate(date) }
            if let end = HTTPHead.end(in: record.block) { checkHTTPHead(record.block[..<end]) }
        }
        if input.count <= 64 { checkWARCDate(String(decoding: input, as: UTF8.self)) }
        checkChunkedDecoding(input)
    }

    static let wacz = FuzzTarget(
        "wacz", dictionary: "warc.dict",
        contract: "imported or refused with an ArchiveError, writing nothing beside the cache; each ZIP entry gives exactly the bytes "
            + "it declares, or an error"
    ) { input in
        let folder = Scratch.empty("wacz")
        let path = folder + "/input.wacz"
        Scratch.write(input, to: path)
        do {
            let summary = try ArchiveImporter(store: waczStore, bodyLimit: 64 << 10).importArchive(path)
            let used = summary.imported + summary.updated + summary.requests + summary.skipped.values.reduce(0, +)
            require(used <= summary.records + 1, "\(summary.records) records, \(used) used or skipped")
        } catch {
            require(error is ArchiveError, "importing threw \(type(of: error)), not an ArchiveError: \(error)")
        }
        require(Scratch.listing(folder) == ["input.wacz"], "importing wrote \(Scratch.listing(folder)) beside the archive")
        guard let archive = try? ZIPReader(path: path) else { return }
        for entry in archive.entries.prefix(16) {
            var count = 0
            do {
                try archive.read(entry, chunkSize: 16 << 10) { count += $0.count }
                require(count == entry.size, "\(entry.path) gave \(count) bytes, it declares \(entry.size)")
            } catch {
                require(error is ZIPReader.Damaged, "reading \(entry.path) threw \(type(of: error)): \(error)")
                require(count <= entry.size, "\(entry.path) gave \(count) bytes, it declares \(entry.size)")
            }
        }
    }
}

// MARK: Bundles

/// Whether `path` is relative and stays inside its folder: no empty, "." or ".." component,
/// no NUL or backslash.
private func isSafeRelativePath(_ path: String) -> Bool {
    // By bytes: a mark after `/` makes one `Character` with it.
    let bytes = path.utf8
    let components = bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
    return !bytes.contains(0) && !bytes.contains(UInt8(ascii: "\\")) && bytes.first != UInt8(ascii: "/")
        && components.allSatisfy { !$0.isEmpty && !$0.elementsEqual(".".utf8) && !$0.elementsEqual("..".utf8) }
}

/// A seek table's form string, as it starts the table (after its length).
private let seekTableForm: [UInt8] = [19] + Array("mirror seek table 1".utf8)

/// Deflate's largest ratio of output to input (zlib's documentation): what a member's bytes can
/// inflate to at most.
private let deflateLargestRatio = 1032

/// `table` framed as `mirror pack` frames a seek table after an archive of `archiveEnd` bytes:
/// gzip members holding nothing but subfields "MS", then the fixed-size "MT" with its place and digest.
private func framedSeekTable(_ table: ArraySlice<UInt8>, archiveEnd: Int) -> [UInt8] {
    func member(_ id: String, _ data: ArraySlice<UInt8>) -> [UInt8] {
        let extra = data.count + 4
        return [0x1F, 0x8B, 8, 0x04, 0, 0, 0, 0, 0, 0xFF, UInt8(extra & 0xFF), UInt8(extra >> 8)] + Array(id.utf8)
            + [UInt8(data.count & 0xFF), UInt8(data.count >> 8)] + data + [0x03, 0x00, 0, 0, 0, 0, 0, 0, 0, 0]
    }
    var members: [UInt8] = []
    for start in stride(from: table.startIndex, to: table.endIndex, by: 65_000) {
        members += member("MS", table[start..<min(start + 65_000, table.endIndex)])
    }
    var trailer: [UInt8] = []
    for value in [archiveEnd, members.count] { trailer += (0..<8).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
    trailer += SHA256.hash(data: table)
    return members + member("MT", trailer[...])
}

/// Reads the seek table at the end of `bytes` (written to `path`), checks where it says things
/// are, and reads its files through it.
private func checkSeekTable(_ bytes: [UInt8], at path: String) {
    Scratch.write(bytes, to: path)
    guard let input = try? InputFile(path: path, missing: .io(path: path, message: "missing")),
        let table = BundleSeekTable.read(input)
    else { return }
    let members = table.members
    require(members.first?.start == 0 && members.first?.tarOffset == 0, "the first member is not at the start")
    require(table.archiveEnd <= bytes.count - BundleSeekTable.trailerSize, "the archive ends at \(table.archiveEnd), past the table")
    for (before, after) in zip(members, members.dropFirst()) {
        require(before.start < after.start && before.tarOffset < after.tarOffset, "members out of order")
        let inflated = after.tarOffset - before.tarOffset
        require(
            inflated <= (after.start - before.start) * deflateLargestRatio, "a member inflates to \(inflated) bytes, more than deflate can")
    }
    guard let last = members.last else { return }
    require(last.start < table.archiveEnd, "the last member starts at \(last.start), past the archive's end")
    let tarEnd = last.tarOffset + (table.archiveEnd - last.start) * deflateLargestRatio
    var files: [String: (range: Range<Int>, sha256: [UInt8])] = [:]
    for file in table.files {
        require(
            file.range.lowerBound >= 0 && file.range.upperBound <= tarEnd, "\(file.path) is at \(file.range), past what the members hold")
        files[file.path] = (file.range, file.sha256)
    }
    guard let seekable = try? SeekableBundle.open(path: path) else { violation("a table that reads does not open") }
    for (file, place) in files.prefix(8) {
        if let read = try? seekable.verifiedContents(of: file) {
            require(read.count == place.range.count && Array(SHA256.hash(data: read)) == place.sha256, "\(file) read otherwise")
        }
        guard let reader = seekable.reader(of: file) else { violation("\(file) has no reader") }
        require(reader.size == place.range.count, "\(file)'s reader has \(reader.size) bytes")
        var part = [UInt8](repeating: 0, count: min(reader.size, 100))
        try? part.withUnsafeMutableBytes { try reader.read(into: $0, at: reader.size - $0.count) }
    }
}

/// Inflates `bytes` whole (with access points), member by member, and in ranges from the points.
private func checkGzip(_ bytes: [UInt8]) {
    let limit = 256 << 10
    guard let decoder = try? GzipDecoder(limit: limit, accessPointSpan: 32 << 10) else { violation("no decoder") }
    var output: [UInt8] = []
    var inflated = true
    do {
        try decoder.decompress(bytes, into: &output)
        try decoder.finish()
    } catch {
        inflated = false
    }
    require(output.count <= limit, "inflated \(output.count) bytes, over the limit of \(limit)")
    guard inflated else { return }

    // Member by member, as a gzip WARC is read.
    guard let members = try? GzipDecoder(limit: limit) else { violation("no decoder") }
    var byMember: [UInt8] = []
    var rest = bytes[...]
    while !rest.isEmpty {
        if members.isAtEnd { members.startNextMember() }
        var part: [UInt8] = []
        let used: Int
        do {
            used = try rest.withUnsafeBytes { try members.decompressMember($0, into: &part) }
        } catch {
            violation("a stream that inflates whole fails member by member: \(error)")
        }
        require(used <= rest.count, "a member used \(used) bytes of \(rest.count)")
        require(used > 0 || !part.isEmpty, "member by member, inflating stopped")
        byMember += part
        rest = rest.dropFirst(used)
    }
    require(byMember == output, "member by member, it inflates to other bytes")

    // Ranges, from the access points.
    let points = decoder.accessPoints
    guard !output.isEmpty else { return }
    require(points.first?.uncompressedOffset == 0, "no access point at the start")
    var ranges = [0..<output.count, output.count / 3..<output.count * 2 / 3, output.count - 1..<output.count]
    for point in points.suffix(3) where point.uncompressedOffset > 0 {
        ranges.append(point.uncompressedOffset - 1..<min(point.uncompressedOffset + 1000, output.count))
    }
    for range in ranges {
        do {
            let reader = try GzipRangeReader(points: points, range: range) { offset, buffer in
                let count = max(0, min(buffer.count, bytes.count - offset))
                if count > 0 {
                    bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + count])) }
                }
                return count
            }
            var read: [UInt8] = []
            while let chunk = try reader.next(maxCount: 7_000) { read += chunk }
            require(read == Array(output[range]), "bytes \(range) read from the access points differ")
        } catch {
            violation("bytes \(range) of a stream that inflates whole cannot be read from its access points: \(error)")
        }
    }
}

// MARK: WARC

/// The records a `WARCRecordParser` hands out, checked as they come: a block never longer than
/// its Content-Length, and exactly that long at its end.
private final class RecordCollector: WARCRecordHandler {
    struct Record: Equatable {
        var header: WARCHeader
        var offset: Int
        var length: Int
        var block: [UInt8] = []

        static func == (left: Record, right: Record) -> Bool {
            left.offset == right.offset && left.block == right.block && left.header.version == right.header.version
                && left.header.fields.elementsEqual(right.header.fields) { $0 == $1 }
        }
    }

    private(set) var records: [Record] = []
    private var current: Record?

    func begin(_ header: WARCHeader, offset: Int) throws {
        require(current == nil, "a record begins inside another")
        guard let length = header["Content-Length"].flatMap({ Int($0) }), length >= 0 else {
            violation("a record begins without a valid Content-Length")
        }
        current = Record(header: header, offset: offset, length: length)
    }

    func block(_ bytes: ArraySlice<UInt8>) throws {
        require(current != nil, "block bytes outside a record")
        current?.block += bytes
        require(current!.block.count <= current!.length, "a block runs past its Content-Length of \(current!.length)")
    }

    func end() throws {
        guard let record = current else { violation("a record ends that did not begin") }
        require(record.block.count == record.length, "a block of \(record.block.count) bytes ends, its Content-Length is \(record.length)")
        records.append(record)
        current = nil
    }
}

/// The records of a WARC fed in `chunks`, and why reading stopped if it did.
private func readWARC(_ chunks: [ArraySlice<UInt8>]) -> (records: [RecordCollector.Record], failure: String?) {
    let collector = RecordCollector()
    let parser = WARCRecordParser(path: "input", handler: collector)
    let stream = WARCStream(parser: parser)
    do {
        for chunk in chunks { try stream.feed(Array(chunk)) }
        try stream.finish()
        return (collector.records, nil)
    } catch {
        require(error is ArchiveError, "reading threw \(type(of: error)), not an ArchiveError: \(error)")
        return (collector.records, "\(error)")
    }
}

/// A header serialised and read back has the same version and fields, and the Content-Length last.
private func checkWARCHeader(_ header: WARCHeader) {
    let serialised = header.serialized(contentLength: 12)
    guard let again = WARCHeader.parse(serialised.dropLast(4)) else { violation("a serialised header does not read") }
    require(again.version == header.version, "the version '\(header.version)' read back as '\(again.version)'")
    let expected = header.fields + [("Content-Length", "12")]
    require(again.fields.elementsEqual(expected) { $0 == $1 }, "the fields \(header.fields) read back as \(again.fields)")
}

/// A date read from text reads back from the text it formats to.
private func checkWARCDate(_ text: String) {
    guard let date = WARCDate(text) else { return }
    require(WARCDate(date.text) == date, "the date of '\(text)' formats to '\(date.text)', which reads otherwise")
    let wholeSeconds = date.microseconds - (date.microseconds % 1_000_000 + 1_000_000) % 1_000_000
    require(
        WARCDate(date.secondsText)?.microseconds == wholeSeconds, "the date of '\(text)' in seconds, '\(date.secondsText)', reads otherwise"
    )
    require(date.timestamp.utf8.count == 14, "the date of '\(text)' has the timestamp '\(date.timestamp)'")
}

/// A response head read from bytes reads back from the head it serialises to.
private func checkHTTPHead(_ bytes: ArraySlice<UInt8>) {
    guard let head = HTTPHead.parse(bytes) else { return }
    // NIO traps on a name that is not ASCII when headers are copied (`HTTPHeaders.add`), as the cache does.
    for header in head.headers { require(header.name.utf8.allSatisfy { $0 < 0x80 }, "the field name '\(header.name)' is not ASCII") }
    guard let status = head.status else { return }
    require((100...999).contains(status), "status \(status)")
    guard let again = HTTPHead.parse(HTTPHead.response(status: status, headers: head.headers)[...]) else {
        violation("a serialised head does not read")
    }
    require(again.status == status, "status \(status) read back as \(String(describing: again.status))")
    require(again.headers.elementsEqual(head.headers) { $0 == $1 }, "the fields \(head.headers) read back as \(again.headers)")
}

/// Chunked decoding of the input (never more bytes out than in), and of the input chunked (the input back).
private func checkChunkedDecoding(_ input: [UInt8]) {
    let cut = input.count / 2
    let decoder = ChunkedDecoder()
    var output: [UInt8] = []
    do {
        try decoder.decode(input[..<cut], into: &output)
        require(output.count <= cut, "decoding \(cut) bytes gave \(output.count)")
        try decoder.decode(input[cut...], into: &output)
        require(output.count <= input.count, "decoding \(input.count) bytes gave \(output.count)")
        try decoder.finish(into: &output)
        require(output.count <= input.count, "decoding \(input.count) bytes gave \(output.count) at the end")
    } catch {
        require(error is ChunkedDecoder.Malformed, "decoding threw \(type(of: error))")
    }

    // The input chunked, in chunks of sizes its own bytes give, with extensions and a trailer now and then.
    var encoded: [UInt8] = []
    var start = 0
    var turn = 0
    while start < input.count {
        let size = min(Int(input[turn % input.count]) % 97 + 1, input.count - start)
        encoded += Array(String(size, radix: 16, uppercase: turn % 2 == 1).utf8)
        if turn % 3 == 2 { encoded += Array(";name=value".utf8) }
        encoded += Array((turn % 4 == 3 ? "\n" : "\r\n").utf8) + input[start..<start + size] + Array("\r\n".utf8)
        start += size
        turn += 1
    }
    encoded += Array((input.count % 2 == 0 ? "0\r\n\r\n" : "0\r\nExpires: 0\r\n\r\n").utf8)
    let pieces = input.first.map { Int($0) * encoded.count / 256 } ?? 0
    let again = ChunkedDecoder()
    var decoded: [UInt8] = []
    do {
        try again.decode(encoded[..<pieces], into: &decoded)
        try again.decode(encoded[pieces...], into: &decoded)
        try again.finish(into: &decoded)
    } catch {
        violation("a chunked encoding of the input does not decode: \(error)")
    }
    require(decoded == input, "a chunked encoding of the input decodes to \(decoded.count) other bytes")
}

// MARK: Files

/// The cache the WACZ target imports into: one per process, made once.
private let waczStore: CacheStore = {
    let folder = Scratch.root + "/wacz-cache"
    do { return try CacheStore(directory: folder) } catch { violation("no cache at \(folder): \(error)") }
}()

/// Folders of this process's own, for parsers that read files: each emptied before an input, all
/// removed when the process ends. In memory (`/dev/shm`) where there is one: a disk's file
/// system made and removed the files more slowly than most inputs are parsed.
private enum Scratch {
    static let root: String = {
        try? FileManager.default.removeItem(atPath: folder)
        atexit { try? FileManager.default.removeItem(atPath: Scratch.folder) }
        return folder
    }()

    private static var folder: String {
        let memory = "/dev/shm"
        let parent = access(memory, W_OK) == 0 ? memory : FileManager.default.temporaryDirectory.path
        return parent + "/mirror-fuzz-\(getpid())"
    }

    /// The folder `name`, made empty.
    static func empty(_ name: String) -> String {
        let folder = root + "/" + name
        try? FileManager.default.removeItem(atPath: folder)
        do { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) } catch {
            violation("cannot make \(folder): \(error)")
        }
        return folder
    }

    /// Writes `bytes` to a new file at `path` with plain system calls (`FileManager` writes
    /// atomically, with an fsync that costs more than most inputs' parsing).
    static func write(_ bytes: [UInt8], to path: String) {
        do {
            let descriptor = try PosixFile.open(path, flags: O_WRONLY | O_CREAT | O_TRUNC)
            defer { close(descriptor) }
            try PosixFile.writeAll(descriptor, bytes, path: path)
        } catch {
            violation("cannot write \(path): \(error)")
        }
    }

    /// The names in `folder`, sorted.
    static func listing(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    /// Every regular file under `folder` by its path relative to it, with its bytes; anything
    /// but a file or a folder (a link, a device) is a violation.
    static func files(under folder: String, prefix: String = "") -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for name in listing(folder) {
            let path = folder + "/" + name
            var info = stat()
            require(lstat(path, &info) == 0, "cannot stat \(path)")
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                files.merge(Self.files(under: path, prefix: prefix + name + "/")) { first, _ in first }
            case S_IFREG:
                guard let bytes = FileManager.default.contents(atPath: path) else { violation("cannot read \(path)") }
                files[prefix + name] = Array(bytes)
            default:
                violation("\(prefix + name) is neither a file nor a folder (mode \(String(info.st_mode, radix: 8)))")
            }
        }
        return files
    }
}
