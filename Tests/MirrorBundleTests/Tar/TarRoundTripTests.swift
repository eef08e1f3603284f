import MirrorBundle
import MirrorTestSupport
import Testing

@Suite("Tar round trip: TarWriter to TarReader")
struct TarRoundTripTests {
    @Test("every entry comes back, whatever the chunk size", arguments: [7, 511, 512, 513, 65_536, 1 << 20, Int.max])
    func fixedChunks(chunkSize: Int) async throws {
        try await offPool {
            let sample = TarSample.standard()
            let contents = try TarTestReading.read(try sample.archive(), chunkSize: chunkSize)
            #expect(contents.entries == sample.entries)
            #expect(contents.files == sample.fileMap)
        }
    }

    @Test("byte by byte")
    func oneByteChunks() async throws {
        try await offPool {
            let sample = TarSample.standard(bigFileSize: 0)
            let contents = try TarTestReading.read(try sample.archive(), chunkSize: 1)
            #expect(contents.entries == sample.entries)
            #expect(contents.files == sample.fileMap)
        }
    }

    @Test("random chunk sizes", arguments: [1, 2, 3, 42] as [UInt64])
    func randomChunks(seed: UInt64) async throws {
        try await offPool {
            let sample = TarSample.standard(seed: seed)
            var random = SeededGenerator(seed: seed)
            let archive = try sample.archive(chunkSize: Int.random(in: 1...100_000, using: &random))
            let contents = try TarTestReading.read(archive) { Int.random(in: 1...70_000, using: &random) }
            #expect(contents.entries == sample.entries)
            #expect(contents.files == sample.fileMap)
        }
    }

    @Test("the same input gives the same bytes, however the data is chunked")
    func reproducible() async throws {
        try await offPool {
            let sample = TarSample.standard()
            let first = try sample.archive(chunkSize: 1000)
            let second = try sample.archive(chunkSize: 65_536)
            #expect(first == second)
            #expect(first.count % 10240 == 0)
        }
    }

    @Test("an empty archive is only the end marker, padded to a record")
    func emptyArchive() throws {
        var writer = TarWriter()
        var output: [UInt8] = []
        writer.finish(to: &output)
        #expect(output == [UInt8](repeating: 0, count: 10240))
        #expect(try TarTestReading.read(output) == TarContents())
    }
}
