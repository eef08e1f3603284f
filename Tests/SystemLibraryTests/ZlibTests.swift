import Foundation
import MirrorCompression
import MirrorTestSupport
import Testing

@Suite("zlib gzip streams")
struct ZlibTests {
    /// Mixed, partly repetitive data that compresses but not trivially.
    let sample: [UInt8] = (0..<300_000).map { UInt8(truncatingIfNeeded: ($0 * 7919) % 251 ^ ($0 >> 10)) }

    @Test func roundTripsThroughGzip() throws {
        let compressed = try GzipEncoder.compress(sample)
        #expect(compressed.count < sample.count)
        #expect(compressed.prefix(2) == [0x1f, 0x8b])
        #expect(try GzipDecoder.decompress(compressed) == sample)
    }

    @Test func sameInputGivesSameBytes() throws {
        #expect(try GzipEncoder.compress(sample, level: 9) == GzipEncoder.compress(sample, level: 9))
    }

    @Test func streamingInSmallChunksMatchesOneShot() throws {
        let encoder = try GzipEncoder()
        var compressed: [UInt8] = []
        for start in stride(from: 0, to: sample.count, by: 1000) {
            encoder.compress(Array(sample[start..<min(start + 1000, sample.count)]), into: &compressed)
        }
        encoder.finish(into: &compressed)
        let decoder = try GzipDecoder()
        var output: [UInt8] = []
        for start in stride(from: 0, to: compressed.count, by: 7) {
            try decoder.decompress(Array(compressed[start..<min(start + 7, compressed.count)]), into: &output)
        }
        try decoder.finish()
        #expect(output == sample)
    }

    @Test func gnuGzipReadsOurs() async throws {
        let compressed = try GzipEncoder.compress(sample)
        let output = try await run("/bin/gzip", ["-dc"], input: compressed)
        #expect(output == sample)
    }

    @Test func weReadGnuGzipAndConcatenatedMembers() async throws {
        let theirs = try await run("/bin/gzip", ["-c", "-9"], input: sample)
        let ours = try GzipEncoder.compress(Array("tail".utf8))
        #expect(try GzipDecoder.decompress(theirs + ours) == sample + Array("tail".utf8))
    }

    @Test func truncatedStreamIsAnError() throws {
        let compressed = try GzipEncoder.compress(sample)
        #expect(throws: CompressionError.truncated) {
            try GzipDecoder.decompress(Array(compressed.prefix(compressed.count / 2)))
        }
    }

    @Test func corruptStreamIsAnError() throws {
        var compressed = try GzipEncoder.compress(sample)
        compressed[compressed.count - 6] ^= 0xff  // inside the CRC-32 trailer
        #expect(throws: CompressionError.self) { try GzipDecoder.decompress(compressed) }
    }

    /// Stopping at each block boundary (to note access points) reads a stream as it is read
    /// without stopping: zlib may already hold the next block's header in its bit buffer when
    /// the input runs out there, and must still be asked to read it. This stream (found by the
    /// bundle fuzzer) ends in an invalid block type held that way.
    @Test(arguments: [nil, 1 << 20]) func aCorruptionAfterABlockIsFoundWithOrWithoutAccessPoints(_ span: Int?) throws {
        let stream: [UInt8] = Array(Data(base64Encoded: "H4sIAEpK//8ASkpKSv////////8BSkouABw=")!)
        #expect(throws: CompressionError.corruptData(message: "invalid block type")) {
            let decoder = try GzipDecoder(accessPointSpan: span)
            var output: [UInt8] = []
            try decoder.decompress(stream, into: &output)
            try decoder.finish()
        }
    }

    @Test func gzipBombStopsAtTheLimit() throws {
        // 64 MiB of zeros compress to about 64 KiB.
        let bomb = try GzipEncoder.compress([UInt8](repeating: 0, count: 64 << 20), level: 9)
        #expect(bomb.count < 100_000)
        #expect(throws: CompressionError.outputLimitExceeded(limit: 1 << 20)) {
            try GzipDecoder.decompress(bomb, limit: 1 << 20)
        }
    }

    /// Found by the `sitemap-gzip` fuzz target: a stream over the limit whose trailer is corrupt
    /// gave "corrupt" when inflated whole (zlib's verdict came in the call that crossed the limit)
    /// but "over the limit" in pieces. The limit is now checked first, so both say it.
    @Test func aCorruptBombStopsAtTheLimitHoweverItIsFed() throws {
        var bomb = try GzipEncoder.compress([UInt8](repeating: 0, count: 100_000), level: 9)
        bomb[bomb.count - 8] ^= 0xFF  // the CRC-32 of the trailer
        #expect(throws: CompressionError.outputLimitExceeded(limit: 65_536)) {
            try GzipDecoder.decompress(bomb, limit: 65_536)
        }
        let decoder = try GzipDecoder(limit: 65_536)
        var output: [UInt8] = []
        #expect(throws: CompressionError.outputLimitExceeded(limit: 65_536)) {
            for byte in bomb { try decoder.decompress([byte], into: &output) }
        }
        #expect(output.count <= 65_536)
    }

    /// Access points recorded while inflating (inside GNU gzip's one big member, and at each
    /// member) let any range be inflated on its own, across member boundaries too.
    @Test func rangesInflateFromAccessPoints() async throws {
        let big: [UInt8] = (0..<3_500_000).map { UInt8(truncatingIfNeeded: ($0 * 7919) % 251 ^ ($0 >> 10) ^ ($0 >> 17)) }
        let data = big + sample
        let compressed =
            try await run("/bin/gzip", ["-c"], input: big) + GzipEncoder.compress(Array(sample[..<1000]))
            + GzipEncoder.compress(Array(sample[1000...]))
        let decoder = try GzipDecoder(accessPointSpan: 1 << 20)
        var output: [UInt8] = []
        try decoder.decompress(compressed, into: &output)
        try decoder.finish()
        #expect(output == data)
        let points = decoder.accessPoints
        #expect(points.filter(\.startsMember).map(\.uncompressedOffset) == [0, big.count, big.count + 1000])
        #expect(points.count(where: { !$0.startsMember }) >= 2)
        var ranges = [0..<data.count, big.count - 10..<big.count + 1500, data.count - 1..<data.count, 5..<5]
        for point in points where point.uncompressedOffset > 0 {
            ranges += [
                point.uncompressedOffset - 1..<point.uncompressedOffset + 1, point.uncompressedOffset..<point.uncompressedOffset + 70_000,
            ]
        }
        for range in ranges {
            let reader = try GzipRangeReader(points: points, range: range) { offset, buffer in
                let count = min(buffer.count, compressed.count - offset)
                buffer.copyBytes(from: compressed[offset..<offset + count])
                return count
            }
            var read: [UInt8] = []
            while let chunk = try reader.next(maxCount: 50_000) { read += chunk }
            #expect(read == Array(data[range]), "\(range)")
        }
    }

    /// Runs `tool` with `input` as its standard input and returns its standard output.
    private func run(_ tool: String, _ arguments: [String], input: [UInt8]) async throws -> [UInt8] {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("zlib-\(UUID().uuidString)").path
        defer {
            unlink(base + ".in")
            unlink(base + ".out")
        }
        try Data(input).write(to: URL(fileURLWithPath: base + ".in"))
        let process = try Subprocess(tool, arguments, stdin: .file(base + ".in"), stdout: .file(base + ".out"))
        #expect(try await process.exit() == .exited(0))
        return try Array(Data(contentsOf: URL(fileURLWithPath: base + ".out")))
    }
}
