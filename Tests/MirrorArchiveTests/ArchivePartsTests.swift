import Foundation
import MirrorCache
import MirrorCompression
import MirrorTestSupport
import Testing

@testable import MirrorArchive

/// The small parts of the archive code, on inputs chosen to break them.
@Suite("Archive parts")
struct ArchivePartsTests {
    /// What Python's `json.dumps` prints for the same string (checked with Python 3.11).
    @Test func stringsAreQuotedAsPythonQuotesThem() {
        #expect(CDXJLine.quoted("é€😀\u{01}\u{7F}\"\\/\n\t<a>") == #""\u00e9\u20ac\ud83d\ude00\u0001\u007f\"\\/\n\t<a>""#)
        #expect(CDXJLine.mime(contentType: "text/html; charset=utf-8") == "text/html")
        #expect(CDXJLine.mime(contentType: "image/png") == "image/png")
    }

    /// The index is sorted in runs on disk when it outgrows its memory: the merge gives the
    /// order a sort in memory gives.
    @Test(arguments: [4096, 1 << 20])
    func linesSortInRunsAsTheyWouldInMemory(memoryLimit: Int) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sorted-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var generator = SeededGenerator(seed: 7)
        let lines = (0..<2000).map { _ in
            "org,example)/"
                + String((0..<Int.random(in: 1...30, using: &generator)).map { _ in "abcé/?=&0".randomElement(using: &generator)! })
        }
        let sorter = SortedLines(folder: folder, memoryLimit: memoryLimit)
        for line in lines { try sorter.add(line) }
        var output: [UInt8] = []
        try sorter.finish { output += $0 }
        let expected = lines.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }.map { $0 + [0x0A] }.joined()
        #expect(output == Array(expected))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty, "run files are removed")
    }

    /// A chunked payload split anywhere decodes the same; a payload that only claims to be chunked passes through.
    @Test func chunkedPayloadsDecodeWhereverTheyAreCut() throws {
        let payload = Array("Chunked transfer coding, cut at every byte.\r\nWith CRLFs inside.".utf8)
        let wire = HandMadeWARC.chunked(payload, size: 9)
        for cut in 0...wire.count {
            let decoder = ChunkedDecoder()
            var output: [UInt8] = []
            try decoder.decode(wire[..<cut], into: &output)
            try decoder.decode(wire[cut...], into: &output)
            try decoder.finish(into: &output)
            #expect(output == payload, "cut at \(cut)")
        }
        let notChunked = ChunkedDecoder()
        var output: [UInt8] = []
        try notChunked.decode(ArraySlice(Array("<html>already de-chunked".utf8)), into: &output)
        try notChunked.finish(into: &output)
        #expect(output == Array("<html>already de-chunked".utf8))
        let cutShort = ChunkedDecoder()
        try cutShort.decode(ArraySlice(Array("5\r\nhel".utf8)), into: &output)
        #expect(throws: ChunkedDecoder.Malformed.self) { try cutShort.finish(into: &output) }
    }

    /// A ZIP of one entry, written by hand so that its sizes can lie.
    static func zip(name: String, data: [UInt8], method: Int, size: Int) -> [UInt8] {
        func le(_ value: Int, _ width: Int) -> [UInt8] { (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        let name = Array(name.utf8)
        let sizes = le(data.count, 4) + le(size, 4) + le(name.count, 2) + le(0, 2)
        let local = le(0x0403_4B50, 4) + le(20, 2) + le(0, 2) + le(method, 2) + le(0, 8) + sizes + name
        let central = le(0x0201_4B50, 4) + le(20, 2) + le(20, 2) + le(0, 2) + le(method, 2) + le(0, 8) + sizes + le(0, 14) + name
        let end = le(0x0605_4B50, 4) + le(0, 4) + le(1, 2) + le(1, 2) + le(central.count, 4) + le(local.count + data.count, 4) + le(0, 2)
        return local + data + central + end
    }

    /// ZIPFoundation's inflating on Linux spins forever at the end of the file when an entry's
    /// deflate stream does not end (weichsel/ZIPFoundation#389), and gives whatever a stream
    /// inflates to (the `wacz` fuzz target's contract): `ZIPReader` gives an entry's declared
    /// bytes or an error, and the import stops at such an entry with its reason.
    @Test func aZIPEntryGivesNoMoreThanItDeclaresAndAnUnendingOneFails() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("zip-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A stored block of 65,535 bytes that holds 3, and then the end of the entry.
        let unfinished = folder + "/unfinished.wacz"
        try Data(Self.zip(name: "archive/data.warc", data: [0x00, 0xFF, 0xFF, 0x00, 0x00] + Array("WAR".utf8), method: 8, size: 200))
            .write(to: URL(fileURLWithPath: unfinished))
        let reader = try ZIPReader(path: unfinished)
        #expect(reader.entries.map(\.path) == ["archive/data.warc"])
        var read: [UInt8] = []
        #expect(throws: ZIPReader.Damaged.self) { try reader.read(reader.entries[0]) { read += $0 } }
        #expect(read.count <= 200)
        let summary = try ArchiveImporter(store: try CacheStore(directory: folder + "/cache")).importArchive(unfinished)
        #expect(summary.error?.contains("the ZIP entry cannot be read") == true, "\(summary)")

        // 1 MiB of zeros, deflated, declared as 10 bytes.
        let bomb = folder + "/bomb.wacz"
        let deflated = Array(try GzipEncoder.compress([UInt8](repeating: 0, count: 1 << 20)).dropFirst(10).dropLast(8))
        try Data(Self.zip(name: "archive/data.warc", data: deflated, method: 8, size: 10)).write(to: URL(fileURLWithPath: bomb))
        let bombReader = try ZIPReader(path: bomb)
        read = []
        try bombReader.read(bombReader.entries[0]) { read += $0 }
        #expect(read == [UInt8](repeating: 0, count: 10))
    }

    /// Found by fuzzing (`mirror-fuzz warc`): when a WARC compressed as one gzip stream is damaged,
    /// the records before the damage that came out of the same chunk of the file were dropped with
    /// the output of the call that met it; so what was imported depended on how the file was cut.
    @Test func recordsBeforeTheDamageOfOneGzipStreamAreRead() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("damaged-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var warc = HandMadeWARC()
        warc.add(
            "metadata", uri: "http://example.test/", contentType: "text/plain", block: Array(repeating: UInt8(ascii: "a"), count: 60_000))
        let firstRecord = warc.bytes.count
        warc.add(
            "metadata", uri: "http://example.test/", contentType: "text/plain", block: Array(repeating: UInt8(ascii: "b"), count: 20_000))
        // Level 0 writes stored blocks (a header of 5 bytes, then the bytes as they are): the
        // lengths of the first block that starts after the first record disagree.
        var gzip = try GzipEncoder.compress(warc.bytes, level: 0)
        var block = 10
        var inflated = 0
        while inflated < firstRecord {
            let length = Int(gzip[block + 1]) | Int(gzip[block + 2]) << 8
            block += 5 + length
            inflated += length
        }
        gzip[block + 3] ^= 0xFF
        try Data(gzip).write(to: URL(fileURLWithPath: folder + "/damaged.warc.gz"))
        let summary = try ArchiveImporter(store: try CacheStore(directory: folder + "/cache")).importArchive(folder + "/damaged.warc.gz")
        // The first record was read whole (and skipped: it is no response); the second is the damaged one.
        #expect(summary.skipped == ["metadata record": 1], "\(summary)")
        #expect(summary.error?.contains("in the record at offset \(firstRecord): compressed data is corrupt") == true, "\(summary)")
    }

    /// Cut by bytes: a mark after `:` made one `Character` with it, and the field was lost or cut
    /// at a later colon; a continuation line starting with a space and a mark began a field.
    @Test func aMarkAfterTheColonOrTheFoldingSpaceIsKept() throws {
        let lines = try #require(
            FieldLines(
                ArraySlice(Array("HTTP/1.1 200 OK\r\nContent-Type:\u{301}text/html\r\nLocation:\u{301}http://x/\r\n \u{301}y\r\n".utf8))))
        #expect(lines.fields.map(\.name) == ["Content-Type", "Location"])
        #expect(lines.fields.map { Array($0.value.utf8) } == [Array("\u{301}text/html".utf8), Array("\u{301}http://x/ \u{301}y".utf8)])
    }

    /// Found by fuzzing (`mirror-fuzz warc`): a folded value whose first line was empty began
    /// with a space (and one whose continuation was blank ended with one), which the header
    /// written back on one line lost.
    @Test func foldedValuesReadBackOnceWrittenOnOneLine() throws {
        let lines = try #require(FieldLines(ArraySlice(Array("WARC/1.1\r\nA:\r\n  x\r\nB: y\r\n \t\r\nC: z\r\n\tw".utf8))))
        #expect(lines.fields.map { [$0.name, $0.value] } == [["A", "x"], ["B", "y"], ["C", "z w"]])
        let header = try #require(WARCHeader.parse(ArraySlice(Array("WARC/1.1\r\nA:\r\n  x".utf8))))
        let again = try #require(WARCHeader.parse(header.serialized(contentLength: 0).dropLast(4)))
        #expect(again["A"] == "x")
    }

    /// Found by fuzzing (`mirror-fuzz warc`): a first chunk of one byte was taken for the start
    /// of a plain WARC, since gzip's magic number has two.
    @Test func aGzipWARCFedByteByByteIsReadAsGzip() throws {
        final class Counter: WARCRecordHandler {
            var records = 0
            func begin(_ header: WARCHeader, offset: Int) throws { records += 1 }
            func block(_ bytes: ArraySlice<UInt8>) throws {}
            func end() throws {}
        }
        var warc = HandMadeWARC()
        warc.add("metadata", uri: "http://example.test/", contentType: "text/plain", block: Array("hello".utf8))
        let counter = Counter()
        let stream = WARCStream(parser: WARCRecordParser(path: "byte by byte", handler: counter))
        for byte in try GzipEncoder.compress(warc.bytes) { try stream.feed([byte]) }
        try stream.finish()
        #expect(counter.records == 1)
    }

    /// Found by fuzzing (`mirror-fuzz warc`): `Int(_:radix:)` read a chunk size of "-1" as minus
    /// one, and taking that many bytes trapped. A size is hex digits alone: a payload starting
    /// otherwise is no chunked payload, and after a chunk it is a malformed one.
    @Test func aSignedChunkSizeIsNoChunkSize() throws {
        let decoder = ChunkedDecoder()
        var output: [UInt8] = []
        try decoder.decode(ArraySlice(Array("-1\r\nhello".utf8)), into: &output)
        try decoder.finish(into: &output)
        #expect(output == Array("-1\r\nhello".utf8))
        let afterAChunk = ChunkedDecoder()
        #expect(throws: ChunkedDecoder.Malformed.self) {
            try afterAChunk.decode(ArraySlice(Array("1\r\na\r\n+1\r\nb".utf8)), into: &output)
        }
    }

    /// Found by fuzzing (`mirror-fuzz wacz`): a response whose head had a field name that is not
    /// ASCII was imported with it, and NIO trapped (`HTTPHeaders.add`) when the cache copied its
    /// headers. Such a field is left out.
    @Test func aFieldNameThatIsNotASCIIIsLeftOut() throws {
        let head = try #require(HTTPHead.parse(ArraySlice(Array("HTTP/1.1 200 OK\r\nBäd: x\r\nContent-Type: text/plain\r\n\r\n".utf8))))
        #expect(head.headers.map(\.name) == ["Content-Type"])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("field-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var warc = HandMadeWARC()
        warc.add(
            "response", uri: "http://example.test/", contentType: "application/http; msgtype=response",
            block: HandMadeWARC.http("HTTP/1.1 200 OK", [("Bäd", "x"), ("Content-Type", "text/plain")], payload: Array("hi".utf8)))
        try warc.write(to: folder + "/field.warc")
        let summary = try ArchiveImporter(store: try CacheStore(directory: folder + "/cache")).importArchive(folder + "/field.warc")
        #expect(summary.imported == 1, "\(summary)")
    }
}
