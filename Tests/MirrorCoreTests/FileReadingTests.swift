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
            FileManager.default.createFile(atPath: root + "/f\(size)", contents: Data(bytes))
            #expect(try FileReading.contents(of: root + "/f\(size)") == bytes, "\(size) bytes")
        }
        // Not a missing file: an error, with the path.
        let failure = #expect(throws: FileSystemError.self) { try FileReading.contents(of: root) }
        #expect(failure?.path == root)
    }
}
