import Foundation
import MirrorTestSupport
import Testing

@testable import MirrorBundle

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
        #expect(
            try seekable.verifiedContents(of: ".mirror/manifest.json")
                == Array(try Data(contentsOf: URL(fileURLWithPath: site.folder + "/.mirror/manifest.json"))))
        #expect(try seekable.verifiedContents(of: "pages/none.html") == nil)
        // Other tools read the same bundle, the table passed over.
        let listed = try await ChildProcess.run(URL(fileURLWithPath: "/bin/tar"), ["-tzf", bundle])
        #expect(listed.status == 0 && listed.stdout.contains("pages/page-18.html"), "\(listed.stderr)")
        #expect(try await ChildProcess.run(URL(fileURLWithPath: "/bin/gzip"), ["-t", bundle]).status == 0)
        _ = try BundleArchive(path: bundle)
    }

    @Test func partsOfAFileAreReadInPlaceAndEachMemberIsChecked() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let (site, bundle) = try packed()
        // The largest file spans three members of 1 MiB.
        let (path, bytes) = try #require(site.files.max { $0.value.count < $1.value.count })
        let reader = try #require(try SeekableBundle.open(path: bundle)?.reader(of: path))
        #expect(reader.size == bytes.count)
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<50 {
            let start = Int.random(in: 0..<bytes.count, using: &generator)
            let count = Int.random(in: 0...min(3 << 20, bytes.count - start), using: &generator)
            var read = [UInt8](repeating: 0, count: count)
            try read.withUnsafeMutableBytes { try reader.read(into: $0, at: start) }
            #expect(read == Array(bytes[start..<start + count]), "\(count) bytes at \(start)")
        }
        // A changed byte in one member (the middle of the bundle is inside the largest file): its
        // parts are refused, the others' still read right.
        var damaged = Array(try Data(contentsOf: URL(fileURLWithPath: bundle)))
        damaged[damaged.count / 2] ^= 0x20
        try Data(damaged).write(to: URL(fileURLWithPath: root + "/damaged.tar.gz"))
        let damagedReader = try #require(try SeekableBundle.open(path: root + "/damaged.tar.gz")?.reader(of: path))
        var refused = 0
        var read = 0
        for start in stride(from: 0, to: bytes.count, by: 64 << 10) {
            var part = [UInt8](repeating: 0, count: min(4096, bytes.count - start))
            do {
                try part.withUnsafeMutableBytes { try damagedReader.read(into: $0, at: start) }
                #expect(part == Array(bytes[start..<start + part.count]), "the part at \(start) was read wrong")
                read += 1
            } catch {
                #expect("\(error)".contains("does not match its seek table"), "\(error)")
                refused += 1
            }
        }
        #expect(refused >= 1 && read >= 1, "\(refused) parts refused, \(read) read")
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

    /// Found by fuzzing (`mirror-fuzz seek-table`): a table (its digest right, as anyone can
    /// write one) may claim a file larger than its members can inflate to, which a reader then
    /// allocated whole (a petabyte traps), or steps between members whose sums overflow. Such a
    /// table does not hold together: the bundle has none.
    @Test func aTableClaimingMoreThanItsMembersCanHoldIsNoTable() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let (_, bundle) = try packed()
        let input = try InputFile(path: bundle, missing: .io(path: bundle, message: "missing"))
        let table = try #require(BundleSeekTable.read(input))
        let archive = Array(try Data(contentsOf: URL(fileURLWithPath: bundle)).prefix(table.archiveEnd))
        func opens(_ changed: BundleSeekTable) throws -> Bool {
            try Data(archive + changed.encoded()).write(to: URL(fileURLWithPath: root + "/lying.tar.gz"))
            return try SeekableBundle.open(path: root + "/lying.tar.gz") != nil
        }
        #expect(try opens(table))
        var huge = table
        huge.files[0].range = huge.files[0].range.lowerBound..<(1 << 50)
        #expect(try !opens(huge))
        // The first member said to inflate to one byte more than deflate can make of its bytes.
        var inflating = table
        let members = table.members
        let extra = (members[1].start - members[0].start) * BundleSeekTable.largestInflation + 1 - members[1].tarOffset
        inflating.members =
            [members[0]] + members.dropFirst().map { .init(start: $0.start, tarOffset: $0.tarOffset + extra, sha256: $0.sha256) }
        #expect(try !opens(inflating))
    }
}
