import Foundation
import MirrorCore
import Testing

@Suite("Whole-file reads")
struct FileReadingTests {
    @Test func readsWholeFilesAndSaysWhenThereIsNone() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("filereading-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(try FileReading.contents(of: root + "/missing") == nil)
        for size in [0, 1, 4096, 300_000] {
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            #expect(FileManager.default.createFile(atPath: root + "/f\(size)", contents: Data(bytes)))
            #expect(try FileReading.contents(of: root + "/f\(size)") == bytes, "\(size) bytes")
        }
        // Not a missing file: an error, with the path.
        let failure = #expect(throws: FileSystemError.self) { try FileReading.contents(of: root) }
        #expect(failure?.path == root)
    }

    /// Files longer than their size says (`/proc`, a FIFO: size 0) are read to their end, past
    /// the buffer the size asked for, in pieces.
    @Test func readsPastTheSizeTheFileGave() throws {
        #if os(Linux)
        let commandLine = try #require(try FileReading.contents(of: "/proc/self/cmdline"))
        #expect(commandLine == Array(try Data(contentsOf: URL(fileURLWithPath: "/proc/self/cmdline"))))
        #expect(!commandLine.isEmpty)
        #endif
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("filereading-\(UUID().uuidString)").path
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let writer = Thread {
            let handle = FileHandle(forWritingAtPath: fifo)!
            handle.write(Data(bytes))
            try? handle.close()
        }
        writer.start()
        #expect(try FileReading.contents(of: fifo) == bytes)
    }

    /// A file in pieces: the same bytes, in pieces no larger than asked, the last one short or
    /// none at all when the size is a multiple of the piece.
    @Test(arguments: [0, 1, 4095, 4096, 4097, 40_000]) func readsAFileInPieces(size: Int) throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("filereading-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(try !FileReading.forEachPiece(of: root + "/missing") { _ in Issue.record("a missing file has pieces") })
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        #expect(FileManager.default.createFile(atPath: root + "/f", contents: Data(bytes)))
        var pieces: [[UInt8]] = []
        #expect(try FileReading.forEachPiece(of: root + "/f", pieceSize: 4096) { pieces.append(Array($0)) })
        #expect(pieces.flatMap { $0 } == bytes)
        #expect(pieces.count == (size + 4095) / 4096)
        #expect(pieces.allSatisfy { $0.count <= 4096 && !$0.isEmpty })
    }

    /// A file's start: as many bytes as asked, all of a shorter file, nil for a missing one.
    @Test(arguments: [0, 1, 8191, 8192, 8193, 300_000]) func readsTheStartOfAFile(size: Int) throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("filereading-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(try FileReading.prefix(of: root + "/missing", upTo: 8192) == nil)
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 17) }
        #expect(FileManager.default.createFile(atPath: root + "/f", contents: Data(bytes)))
        #expect(try FileReading.prefix(of: root + "/f", upTo: 8192) == Array(bytes.prefix(8192)))
    }
}
