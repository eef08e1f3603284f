import Foundation
import MirrorBundle
import MirrorTestSupport
import Testing

/// A damaged bundle, or one whose files disagree with its manifest, is refused when it is
/// opened for reading in place — never served.
@Suite("Bundle archive refusals")
struct BundleArchiveRefusalTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("archive-refusals-\(UUID().uuidString)").path

    func mirror() throws -> SyntheticMirror {
        var files: [String: [UInt8]] = [:]
        for (index, size) in [300, 70_000, 2_000, 1_300_000, 9_000].enumerated() {
            files["pages/page-\(index).html"] = SyntheticMirror.text(count: size, seed: UInt64(index))
        }
        return try SyntheticMirror(folder: root + "/site", files: files)
    }

    /// Opening `bundle` must fail with an error `matches` accepts.
    func expectRefused(_ bundle: String, sourceLocation: SourceLocation = #_sourceLocation, _ matches: (BundleError) -> Bool) {
        do {
            _ = try BundleArchive(path: bundle)
            Issue.record("\(bundle) was opened", sourceLocation: sourceLocation)
        } catch let error as BundleError {
            #expect(matches(error), "unexpected refusal: \(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("not a BundleError: \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func everyTruncationIsRefused() throws {
        let site = try mirror()
        let bundle = root + "/whole.tar.gz"
        try BundlePacker().pack(folder: site.folder, to: bundle)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: bundle))
        var generator = SeededGenerator(seed: BundleArchiveTests.seed("everyTruncationIsRefused"))
        let cuts = [0, 1, 10, bytes.count / 2, bytes.count - 9, bytes.count - 1] + (0..<10).map { _ in Int.random(in: 1..<bytes.count, using: &generator) }
        for cut in cuts {
            let truncated = root + "/cut.tar.gz"
            try bytes.prefix(cut).write(to: URL(fileURLWithPath: truncated))
            expectRefused(truncated) { error in
                switch error {
                case .corrupt, .unsafeArchive: true
                default: false
                }
            }
        }
    }

    /// A flipped bit is caught at open (gzip's CRC, tar's checksum or a digest) — or, in the
    /// few header bytes that carry no content, changes nothing that is read.
    @Test func aFlippedBitIsRefusedOrChangesNothing() throws {
        let site = try mirror()
        let bundle = root + "/whole.tar.gz"
        try BundlePacker().pack(folder: site.folder, to: bundle)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: bundle))
        var generator = SeededGenerator(seed: BundleArchiveTests.seed("aFlippedBitIsRefusedOrChangesNothing"))
        var refused = 0
        for _ in 0..<40 {
            var damaged = bytes
            let offset = Int.random(in: 0..<bytes.count, using: &generator)
            damaged[offset] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &generator)
            let path = root + "/flipped.tar.gz"
            try damaged.write(to: URL(fileURLWithPath: path))
            do {
                let archive = try BundleArchive(path: path, cacheCapacity: 0)
                for (file, contents) in site.files {
                    #expect(try BundleArchiveTests.read(archive, file) == contents, "bit \(offset) changed \(file)")
                }
            } catch is BundleError {
                refused += 1
            }
        }
        #expect(refused >= 30, "only \(refused) of 40 damaged bundles were refused")
    }

    @Test func aFileThatDisagreesWithTheManifestIsNamed() async throws {
        let site = try mirror()
        // Same size, other bytes: only the digest can tell.
        try Data(repeating: UInt8(ascii: "x"), count: 2_000).write(to: URL(fileURLWithPath: site.folder + "/pages/page-2.html"))
        let bundle = root + "/changed.tar.gz"
        _ = try await ChildProcess.output("/usr/bin/tar", ["-czf", bundle, "-C", site.folder, "."])
        expectRefused(bundle) { if case .digestMismatch("pages/page-2.html") = $0 { true } else { false } }
        try FileManager.default.removeItem(atPath: site.folder + "/pages/page-2.html")
        _ = try await ChildProcess.output("/usr/bin/tar", ["-czf", bundle, "-C", site.folder, "."])
        expectRefused(bundle) { if case .missingFile("pages/page-2.html") = $0 { true } else { false } }
    }

    @Test func aFileThatIsNotABundleIsRefused() throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let text = root + "/text.tar.gz"
        try Data("just some text, not a bundle\n".utf8).write(to: URL(fileURLWithPath: text))
        expectRefused(text) { if case .corrupt = $0 { true } else { false } }
        expectRefused(root + "/absent.tar.gz") { if case .io = $0 { true } else { false } }
    }
}
