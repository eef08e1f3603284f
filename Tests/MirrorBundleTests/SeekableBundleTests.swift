import Foundation
import MirrorBundle
import MirrorTestSupport
import Testing

/// The seek table `mirror pack` writes after the archive: every file of the folder read back
/// through it alone, the bundle still one gzip file and one tar archive to other tools, and a
/// damaged table or file never read as if it were whole.
@Suite("Bundle seek table")
struct SeekableBundleTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("seekable-\(UUID().uuidString)").path

    /// The synthetic mirror of `BundleArchiveTests` (files across the member rules), packed.
    func packed() throws -> (site: SyntheticMirror, bundle: String) {
        var files: [String: [UInt8]] = [:]
        for (index, size) in BundleArchiveTests.sizes.enumerated() {
            files["pages/page-\(index < 10 ? "0" : "")\(index).html"] = SyntheticMirror.text(count: size, seed: UInt64(index))
        }
        let site = try SyntheticMirror(folder: root + "/site", files: files)
        let bundle = root + "/site.tar.gz"
        try BundlePacker().pack(folder: site.folder, to: bundle)
        return (site, bundle)
    }

    @Test func everyFileIsReadThroughTheTableAlone() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let (site, bundle) = try packed()
        let seekable = try #require(try SeekableBundle.open(path: bundle))
        for (path, bytes) in site.files {
            #expect(try seekable.verifiedContents(of: path) == bytes, "\(path)")
        }
        #expect(try seekable.verifiedContents(of: ".mirror/manifest.json")
                == Array(try Data(contentsOf: URL(fileURLWithPath: site.folder + "/.mirror/manifest.json"))))
        #expect(try seekable.verifiedContents(of: "pages/none.html") == nil)
        // Other tools read the same bundle, the table passed over.
        let listed = try await ChildProcess.run(URL(fileURLWithPath: "/bin/tar"), ["-tzf", bundle])
        #expect(listed.status == 0 && listed.stdout.contains("pages/page-18.html"), "\(listed.stderr)")
        #expect(try await ChildProcess.run(URL(fileURLWithPath: "/bin/gzip"), ["-t", bundle]).status == 0)
        _ = try BundleArchive(path: bundle)
    }

    @Test func aDamagedTableIsIgnoredAndADamagedFileRefused() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let (site, bundle) = try packed()
        let original = Array(try Data(contentsOf: URL(fileURLWithPath: bundle)))
        // The trailer names where the table is: another end is no table at all.
        var cut = original
        cut.removeLast(3)
        try Data(cut).write(to: URL(fileURLWithPath: root + "/cut.tar.gz"))
        #expect(try SeekableBundle.open(path: root + "/cut.tar.gz") == nil)
        // A table pointing elsewhere than the archive's end is no table either.
        var moved = original
        moved[moved.count - 74 + 16] ^= 0x01
        try Data(moved).write(to: URL(fileURLWithPath: root + "/moved.tar.gz"))
        #expect(try SeekableBundle.open(path: root + "/moved.tar.gz") == nil)
        // A changed byte of a file's deflate data is caught: by zlib or by the digest.
        let seekable = try #require(try SeekableBundle.open(path: bundle))
        let path = "pages/page-13.html"
        #expect(try seekable.verifiedContents(of: path) == site.files[path])
        var damaged = original
        damaged[original.count / 2] ^= 0xFF
        try Data(damaged).write(to: URL(fileURLWithPath: root + "/damaged.tar.gz"))
        let reopened = try #require(try SeekableBundle.open(path: root + "/damaged.tar.gz"))
        var refused = 0
        for file in site.files.keys {
            do {
                if try reopened.verifiedContents(of: file) != site.files[file] { Issue.record("\(file) read wrong") }
            } catch {
                refused += 1
            }
        }
        #expect(refused >= 1)
    }
}
