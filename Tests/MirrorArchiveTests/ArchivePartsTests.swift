import Foundation
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

}
