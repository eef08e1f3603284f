import Foundation
import MirrorArchive
import MirrorBundle
import MirrorCache
import MirrorCompression
import MirrorCore
import MirrorSite
import Testing

/// Hostile bundles, gzip-compressed as a real attacker would ship them, each carrying a valid
/// manifest first so the refusal comes from the attack itself. Every one is refused with a
/// message naming the entry, writes nothing outside the destination, and leaves nothing behind.
@Suite("Malicious bundles")
final class MaliciousBundleTests {
    /// A folder for each test (Swift Testing makes a new instance per test); `deinit` removes it.
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("malicious-\(UUID().uuidString)").path

    deinit {
        try? FileManager.default.removeItem(atPath: root)
    }

    /// A manifest listing one file, `site/page.html` holding "hello".
    static let manifestEntry = manifest(
        listing: "site/page.html", size: 5,
        sha256: "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824")

    /// `.mirror/` and a manifest listing one file (a rewritten page, so no original is expected).
    static func manifest(listing path: String, size: Int, sha256: String) -> [UInt8] {
        var manifest = SiteManifest()
        let record = ResponseRecord(headers: [:], requestTime: 0, responseTime: 0, varyKey: "")
        let url = "http://" + path
        manifest.resources[url] = SiteManifest.Resource(
            path: path, status: 200, contentType: "text/html", size: size, sha256: sha256, etag: nil, lastModified: nil,
            record: record)
        manifest.resources[url]?.rewrittenFor = "targets"
        let json = try! JSONEncoder().encode(manifest)
        return RawTar.directory(".mirror") + RawTar.file(".mirror/manifest.json", Array(json))
    }

    static let page = RawTar.directory("site") + RawTar.file("site/page.html", Array("hello".utf8))

    /// The hostile archives: a name, the entries after the manifest, and the text the refusal must contain.
    static let cases: [(String, [[UInt8]], String)] = [
        ("absolute path", [page, RawTar.file("/tmp/evil", [1])], "/tmp/evil"),
        ("parent traversal", [page, RawTar.file("../evil", [1])], "../evil"),
        ("nested traversal", [page, RawTar.file("site/../../evil", [1])], "site/../../evil"),
        ("pax path traversal", [page, RawTar.pax([("path", "../../evil")]), RawTar.file("innocent", [1])], "../../evil"),
        ("GNU long name traversal", [page, RawTar.gnuLong("../" + String(repeating: "a", count: 120)), RawTar.file("x", [1])], "../aaa"),
        ("symlink out", [page, RawTar.header(name: "site/link", type: "2", linkName: "/etc/passwd")], "site/link"),
        (
            "symlink then write through it",
            [page, RawTar.header(name: "site/up", type: "2", linkName: ".."), RawTar.file("site/up/evil", [1])], "site/up"
        ),
        ("hard link", [page, RawTar.header(name: "site/hard", type: "1", linkName: "/etc/shadow")], "site/hard"),
        ("character device", [page, RawTar.header(name: "site/tty", type: "3")], "site/tty"),
        ("block device", [page, RawTar.header(name: "site/disk", type: "4")], "site/disk"),
        ("FIFO", [page, RawTar.header(name: "site/fifo", type: "6")], "site/fifo"),
        ("duplicate name", [page, RawTar.file("site/page.html", Array("other".utf8))], "site/page.html"),
        ("names equal on case-insensitive disks", [page, RawTar.file("site/PAGE.html", [1])], "site/PAGE.html"),
        ("file used as a folder", [page, RawTar.file("site/page.html/evil", [1])], "site/page.html"),
        ("bad header checksum", [page, RawTar.header(name: "site/x", size: 1, checksumDelta: 1) + RawTar.padded([1])], "site/x"),
        ("backslash path", [page, RawTar.file("..\\evil", [1])], "..\\evil"),
    ]

    func refuse(_ parts: [[UInt8]], limits: TarLimits = TarLimits()) throws -> BundleError? {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let bundle = root + "/hostile.tar.gz"
        try Data(try GzipEncoder.compress(RawTar.archive([Self.manifestEntry] + parts))).write(to: URL(fileURLWithPath: bundle))
        // Reading in place refuses what unpacking refuses, with the same error.
        let opened = Result { try BundleArchive(path: bundle, limits: limits) }
        do {
            try BundleUnpacker(limits: limits).unpack(bundle, to: root + "/out")
            #expect(throws: Never.self) { try opened.get() }
            return nil
        } catch let error as BundleError {
            #expect(!FileManager.default.fileExists(atPath: root + "/out"))
            #expect(throws: BundleError.self) { try opened.get() }
            if case .failure(let refusal) = opened { #expect("\(refusal)" == "\(error)") }
            return error
        }
    }

    @Test(arguments: 0..<cases.count)
    func hostileArchivesAreRefused(index: Int) throws {
        let (name, parts, culprit) = Self.cases[index]
        let error = try #require(try refuse(parts), "\(name) was accepted")
        guard case .unsafeArchive = error else {
            Issue.record("\(name): refused for another reason: \(error)")
            return
        }
        #expect("\(error)".contains(culprit), "\(name): the message does not name \(culprit): \(error)")
        #expect(!FileManager.default.fileExists(atPath: root + "/../evil"))
        #expect(!FileManager.default.fileExists(atPath: "/tmp/evil"))
        #expect((try FileManager.default.contentsOfDirectory(atPath: root)) == ["hostile.tar.gz"], "\(name) left something behind")
    }

    @Test func theSameArchiveWithoutTheAttackIsAccepted() throws {
        #expect(try refuse([Self.page]) == nil)
        #expect(FileManager.default.contents(atPath: root + "/out/site/page.html") == Data("hello".utf8))
    }

    @Test func limitsStopBombsAndCanBeRaised() throws {
        let big = [RawTar.file("site/big", [UInt8](repeating: 0, count: 3 << 20))]
        var small = TarLimits()
        small.maxEntrySize = 1 << 20
        #expect("\(try #require(try refuse([Self.page] + big, limits: small)))".contains("site/big"))
        small = TarLimits()
        small.maxTotalSize = 2 << 20
        #expect("\(try #require(try refuse([Self.page] + big, limits: small)))".contains("site/big"))
        small = TarLimits()
        small.maxEntryCount = 3
        #expect(try refuse([Self.page, RawTar.file("site/a", [1])], limits: small) != nil)
        // A megabyte-sized gzip that inflates to a gigabyte of zeros stops at the limit, early.
        var bomb = TarLimits()
        bomb.maxTotalSize = 8 << 20
        let huge = RawTar.header(name: "site/bomb", size: 1 << 30)
        #expect("\(try #require(try refuse([Self.page, huge], limits: bomb)))".contains("site/bomb"))
        // Within raised limits, the unlisted big file is refused by the manifest, not the limit.
        var raised = TarLimits()
        raised.maxEntrySize = 4 << 20
        let error = try #require(try refuse([Self.page] + big, limits: raised))
        if case .unlistedFile("site/big") = error {} else { Issue.record("unexpected: \(error)") }
    }

    /// The manifest lists 100 bytes; the entry's header says 1 GiB, and 1 GiB of zeros follows.
    /// Built cheaply: 1 MiB of zeros compressed once and that gzip member written 1024 times
    /// (concatenated members are one gzip stream). `unpack`, `unpack --check` and `cache import`
    /// refuse at the header, naming the entry and both sizes, and leave nothing behind.
    @Test func aSizeLieIsRefusedAtTheHeader() throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let bundle = root + "/lie.tar.gz"
        let head =
            Self.manifest(listing: "site/big.html", size: 100, sha256: String(repeating: "0", count: 64))
            + RawTar.directory("site") + RawTar.header(name: "site/big.html", size: 1 << 30)
        let megabyte = try GzipEncoder.compress([UInt8](repeating: 0, count: 1 << 20))
        var bytes = try GzipEncoder.compress(head)
        for _ in 0..<1024 { bytes += megabyte }
        bytes += try GzipEncoder.compress(RawTar.endMarker)
        try Data(bytes).write(to: URL(fileURLWithPath: bundle))

        func isTheLie(_ error: any Error) -> Bool {
            guard case BundleError.sizeMismatch("site/big.html", manifestSize: 100, entrySize: 1 << 30) = error else { return false }
            return "\(error)".contains("site/big.html") && "\(error)".contains("1073741824") && "\(error)".contains("100 bytes")
        }
        #expect(performing: { try BundleUnpacker().check(bundle) }, throws: isTheLie)
        #expect(performing: { try BundleUnpacker().unpack(bundle, to: root + "/out") }, throws: isTheLie)
        let store = try CacheStore(directory: root + "/cache")
        #expect(performing: { try BundleImporter(store: store).importBundle(bundle) }, throws: isTheLie)
        #expect(try store.allEntries().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root).sorted() == ["cache", "lie.tar.gz"])
        // Nothing left in the cache's temporary folder: no body, no folder of the import.
        #expect(TemporaryFolder(path: root + "/cache/tmp").files().isEmpty)
    }
}
