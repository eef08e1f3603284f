import Foundation
import MirrorCore
import Testing

@testable import MirrorSite

/// A file replaced holds the new bytes, whole; the old file is kept where asked, whatever is
/// already there; nothing is left in `.mirror/tmp`.
@Suite("Replacing a folder's files")
struct AtomicFilesTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("atomic-\(UUID().uuidString)").path
    var files: AtomicFiles { AtomicFiles(temporaryFolder: root + "/.mirror/tmp") }

    init() throws {
        try FileManager.default.createDirectory(atPath: root + "/.mirror/originals", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/pages", withIntermediateDirectories: true)
        try files.temporary.create()
    }

    func write(_ text: String, at path: String) {
        #expect(FileManager.default.createFile(atPath: root + "/" + path, contents: Data(text.utf8)))
    }

    func contents(_ path: String) -> String? {
        FileManager.default.contents(atPath: root + "/" + path).map { String(decoding: $0, as: UTF8.self) }
    }

    func inode(_ path: String) throws -> UInt64 {
        try #require(FileManager.default.attributesOfItem(atPath: root + "/" + path)[.systemFileNumber] as? UInt64)
    }

    /// The original goes to `kept` when that name is free, when another file holds it, and when
    /// it already is the same file (a second rewrite: both are links to the cache's body).
    @Test(arguments: ["free", "another file", "the same file"]) func theOldFileIsKept(kept state: String) throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        write("original", at: "pages/a.html")
        let kept = ".mirror/originals/a"
        switch state {
        case "another file": write("something else", at: kept)
        case "the same file": try FileManager.default.linkItem(atPath: root + "/pages/a.html", toPath: root + "/" + kept)
        default: break
        }
        let original = try inode("pages/a.html")
        #expect(try files.replace(Array("rewritten".utf8), at: root + "/pages/a.html", keepingOldAt: root + "/" + kept))
        #expect(contents("pages/a.html") == "rewritten")
        #expect(contents(kept) == "original")
        #expect(try inode(kept) == original, "kept as the file it was, not a copy")
        #expect(files.temporary.files().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/pages") == ["a.html"])
        let mode = try #require(FileManager.default.attributesOfItem(atPath: root + "/pages/a.html")[.posixPermissions] as? Int)
        #expect(mode & 0o644 == 0o644, "readable by all, as files written by name")
    }

    @Test func aFileIsReplacedWithoutKeepingIt() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        write("first", at: "pages/b.html")
        try files.replace(Array("second".utf8), at: root + "/pages/b.html")
        #expect(contents("pages/b.html") == "second")
        try files.replace(Array("third".utf8), at: root + "/pages/b.html")
        #expect(contents("pages/b.html") == "third")
        #expect(files.temporary.files().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/pages") == ["b.html"])
    }
}
