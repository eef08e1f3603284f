import Foundation
import MirrorBundle
import MirrorCompression
import MirrorCrawlTesting
import MirrorTestSupport
import Testing

/// Bundles that must be refused — damaged, disagreeing with their manifest, or not bundles at
/// all — and what a refusal leaves behind: nothing. Opening one to read in place
/// (`BundleArchive`) refuses it the same way, so nothing corrupt is ever served.
@Suite("Bundle refusals", .serialized)
final class BundleRefusalTests {
    /// A harness for each test (Swift Testing makes a new instance per test); `deinit` removes its folder.
    let harness = CrawlHarness()
    var root: String { harness.root }

    deinit {
        harness.remove()
    }

    /// A crawled folder of the `plain` fixture site, at `root/out`.
    func crawl() async throws {
        try await TestOrigin.with(site: .named("plain")) { origin in
            _ = try await harness.crawl([origin.url("/")])
            try FileManager.default.removeItem(atPath: root + "/out/.mirror/journal.sqlite")
            try FileManager.default.removeItem(atPath: root + "/out/.mirror/journal.lock")
            try? FileManager.default.removeItem(atPath: root + "/out/.mirror/tmp")
        }
    }

    /// Packs `root/out` with GNU tar (which checks nothing) after `change` edits the folder.
    func gnuBundle(_ name: String, _ change: (String) throws -> Void) async throws -> String {
        let folder = "\(root)/\(name)-folder"
        try FileManager.default.copyItem(atPath: root + "/out", toPath: folder)
        try change(folder)
        let bundle = "\(root)/\(name).tar.gz"
        _ = try await ChildProcess.output("/usr/bin/tar", ["-czf", bundle, "-C", folder, "."])
        return bundle
    }

    /// Unpacking `bundle` must fail; the destination must not exist afterwards, nor any temporary
    /// folder; opening it to read in place must fail with the same error.
    func expectRefused(
        _ bundle: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ matches: (BundleError) -> Bool
    ) {
        let destination = root + "/refused"
        do {
            try BundleUnpacker().unpack(bundle, to: destination)
            Issue.record("\(bundle) was accepted", sourceLocation: sourceLocation)
        } catch let error as BundleError {
            #expect(matches(error), "unexpected refusal: \(error)", sourceLocation: sourceLocation)
            #expect(
                "not refused in place as when unpacking", sourceLocation: sourceLocation,
                performing: { try BundleArchive(path: bundle) }, throws: { "\($0)" == "\(error)" })
        } catch {
            Issue.record("not a BundleError: \(error)", sourceLocation: sourceLocation)
        }
        #expect(!FileManager.default.fileExists(atPath: destination), sourceLocation: sourceLocation)
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: root))?.filter { $0.contains("unpacking") } ?? []
        #expect(leftovers.isEmpty, "left behind: \(leftovers)", sourceLocation: sourceLocation)
    }

    @Test func aChangedFileIsNamed() async throws {
        try await crawl()
        let path = try #require(try harness.manifest().resources.values.first { $0.path.hasSuffix("about.html") }).path
        // Same size, other bytes: only the digest can tell (a size is refused at the header).
        let bundle = try await gnuBundle("changed") { folder in
            let file = URL(fileURLWithPath: folder + "/" + path)
            let size = try Data(contentsOf: file).count
            try Data(repeating: UInt8(ascii: "x"), count: size).write(to: file)
        }
        expectRefused(bundle) { if case .digestMismatch(path) = $0 { return true } else { return false } }
    }

    @Test func aFileTheManifestDoesNotListIsRefused() async throws {
        try await crawl()
        let bundle = try await gnuBundle("extra") { folder in
            try Data("#!/bin/sh".utf8).write(to: URL(fileURLWithPath: folder + "/run.sh"))
        }
        expectRefused(bundle) { if case .unlistedFile("run.sh") = $0 { return true } else { return false } }
    }

    @Test func aMissingFileIsNamed() async throws {
        try await crawl()
        let bundle = try await gnuBundle("missing") { folder in try FileManager.default.removeItem(atPath: folder + "/index.html") }
        expectRefused(bundle) { if case .missingFile("index.html") = $0 { return true } else { return false } }
    }

    @Test func anArchiveWithoutAManifestIsNotABundle() async throws {
        try await crawl()
        let bundle = try await gnuBundle("plain-tar") { folder in try FileManager.default.removeItem(atPath: folder + "/.mirror") }
        expectRefused(bundle) { if case .notABundle = $0 { return true } else { return false } }
    }

    @Test func aManifestOfAnotherVersionIsNotReadAsOurs() async throws {
        try await crawl()
        let bundle = try await gnuBundle("future") { folder in
            let path = folder + "/.mirror/manifest.json"
            let text = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(
                of: "\"version\" : 2", with: "\"version\" : 99")
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        }
        expectRefused(bundle) { "\($0)".contains("version 99") }
    }

    @Test func aFileThatIsNotGzipIsRefused() async throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let bundle = root + "/text.tar.gz"
        try Data("just some text, not a bundle\n".utf8).write(to: URL(fileURLWithPath: bundle))
        expectRefused(bundle) { if case .corrupt = $0 { return true } else { return false } }
    }

    @Test func everyTruncationIsRefused() async throws {
        try await crawl()
        let bundle = root + "/whole.tar.gz"
        try BundlePacker().pack(folder: root + "/out", to: bundle)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: bundle))
        var generator = SeededGenerator(seed: 7)
        let cuts =
            [0, 1, 10, bytes.count / 2, bytes.count - 9, bytes.count - 1]
            + (0..<10).map { _ in Int.random(in: 1..<bytes.count, using: &generator) }
        for cut in cuts {
            let truncated = root + "/cut.tar.gz"
            try bytes.prefix(cut).write(to: URL(fileURLWithPath: truncated))
            expectRefused(truncated) { error in
                switch error {
                case .corrupt, .unsafeArchive: return true
                default: return false
                }
            }
        }
    }

    /// A flipped bit is caught (gzip's CRC, tar's checksum or a digest): what is unpacked is never
    /// different, and since the seek table holds a digest of every gzip member and the trailer
    /// one of the table, no byte of the bundle goes unchecked.
    @Test func aFlippedBitNeverYieldsDifferentFiles() async throws {
        try await crawl()
        let bundle = root + "/whole.tar.gz"
        try BundlePacker().pack(folder: root + "/out", to: bundle)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: bundle))
        let original = FolderContents.mirror(root + "/out")
        var generator = SeededGenerator(seed: 11)
        var refused = 0
        for round in 0..<40 {
            var damaged = bytes
            let offset = Int.random(in: 0..<bytes.count, using: &generator)
            damaged[offset] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &generator)
            let path = root + "/flipped.tar.gz"
            try damaged.write(to: URL(fileURLWithPath: path))
            let destination = "\(root)/flipped-\(round)"
            do {
                try BundleUnpacker().unpack(path, to: destination)
                #expect(FolderContents.mirror(destination) == original, "bit \(offset) changed the unpacked files")
                let archive = try BundleArchive(path: path, cacheCapacity: 0)
                for (file, bytes) in original {
                    #expect(try BundleArchiveTests.read(archive, file) == Array(bytes), "bit \(offset) changed \(file) read in place")
                }
            } catch is BundleError {
                refused += 1
                #expect(!FileManager.default.fileExists(atPath: destination))
                #expect(throws: BundleError.self, "bit \(offset) is refused when unpacking, not in place") {
                    try BundleArchive(path: path)
                }
            }
        }
        #expect(refused == 40, "only \(refused) of 40 damaged bundles were refused")
    }

    @Test func unpackingOverSomethingThatExistsIsRefused() async throws {
        try await crawl()
        let bundle = root + "/site.tar.gz"
        try BundlePacker().pack(folder: root + "/out", to: bundle)
        #expect(throws: BundleError.self) { try BundleUnpacker().unpack(bundle, to: root + "/out") }
        #expect(try harness.manifest().resources.count == 9, "the existing folder was touched")
        try FileManager.default.createDirectory(atPath: root + "/empty", withIntermediateDirectories: true)
        try BundleUnpacker().unpack(bundle, to: root + "/empty")
        #expect(FolderContents.mirror(root + "/empty") == FolderContents.mirror(root + "/out"))
    }

    @Test func packingRefusesAFolderChangedSinceTheCrawl() async throws {
        try await crawl()
        let path = try #require(try harness.manifest().resources.values.first { $0.path.hasSuffix(".png") }).path
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: root + "/out/" + path))
        #expect { try BundlePacker().pack(folder: root + "/out", to: root + "/site.tar.gz") } throws: { error in
            if case BundleError.digestMismatch(path) = error { return true } else { return false }
        }
        #expect(!FileManager.default.fileExists(atPath: root + "/site.tar.gz"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: root).allSatisfy { !$0.contains("partial") })
        #expect(throws: BundleError.self) { try BundlePacker().pack(folder: root + "/cache", to: root + "/cache.tar.gz") }
    }

    /// What a killed pack or unpack leaves (its process gone) is cleared by the next one.
    @Test func leftoversOfKilledRunsAreCleared() async throws {
        try await crawl()
        let dead = "999999999"
        try FileManager.default.createDirectory(atPath: "\(root)/.copy.unpacking-\(dead)/half", withIntermediateDirectories: true)
        try Data([1]).write(to: URL(fileURLWithPath: "\(root)/.site.tar.gz.partial-\(dead)"))
        try BundlePacker().pack(folder: root + "/out", to: root + "/site.tar.gz")
        try BundleUnpacker().unpack(root + "/site.tar.gz", to: root + "/copy")
        let names = try FileManager.default.contentsOfDirectory(atPath: root)
        #expect(names.allSatisfy { !$0.contains(dead) }, "\(names)")
    }
}
