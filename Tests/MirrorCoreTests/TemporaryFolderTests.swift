import Foundation
import MirrorCore
import Testing

@Suite("Temporary folders spread over subfolders")
struct TemporaryFolderTests {
    @Test func newPathsAreUniqueAndSpreadOverTheSubfolders() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tmpfolder-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let folder = TemporaryFolder(path: root + "/tmp")
        #expect(throws: FileSystemError.self) { try folder.create() }  // its parent is missing
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try folder.create()
        try folder.create()  // existing folders are kept
        let paths = (0..<64).map { _ in folder.newPath() }
        #expect(Set(paths).count == 64)
        let subfolders = Set(paths.map { URL(fileURLWithPath: $0).deletingLastPathComponent().lastPathComponent })
        #expect(subfolders == Set((0..<16).map { String($0, radix: 16) }))
        #expect(folder.files().isEmpty)
        for path in paths.prefix(3) { #expect(FileManager.default.createFile(atPath: path, contents: Data("x".utf8))) }
        #expect(FileManager.default.createFile(atPath: root + "/tmp/left-by-an-older-version", contents: nil))
        #expect(Set(folder.files()) == Set(paths.prefix(3) + [root + "/tmp/left-by-an-older-version"]))
    }
}
