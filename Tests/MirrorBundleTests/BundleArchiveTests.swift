import Foundation
import MirrorBundle
import MirrorCompression
import MirrorCrawlTesting
import MirrorLock
import MirrorTestSupport
import Testing

/// Reading bundles in place: what a `BundleArchive` reads — whole files, any range, from many
/// threads — is the folder's bytes, for bundles `mirror pack` makes and for one-member bundles
/// made by GNU `tar czf`; and `mirror pack` starts its gzip members where the rule says.
@Suite("Bundle archive")
final class BundleArchiveTests {
    /// A folder for each test (Swift Testing makes a new instance per test); `deinit` removes it.
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("archive-\(UUID().uuidString)").path

    deinit {
        try? FileManager.default.removeItem(atPath: root)
    }

    /// Sizes around everything that matters: empty, tar blocks, the 64 KiB member rule, and
    /// files cut by the 1 MiB rule; about 4 MiB in all, so a one-member bundle gets access points.
    static let sizes = [
        0, 1, 100, 511, 512, 513, 20_000, 40_000, 65_536, 70_000, 5_000, 200_000,
        1_100_000, 2_500_000, 3_000, 60_000, 30_000, 0, 64_000,
    ]

    /// A mirror folder of `pages/page-NN.html` files of `sizes`, at `root/name`.
    func mirror(_ name: String = "site") throws -> SyntheticMirror {
        var files: [String: [UInt8]] = [:]
        for (index, size) in Self.sizes.enumerated() {
            files["pages/page-\(index < 10 ? "0" : "")\(index).html"] = SyntheticMirror.text(count: size, seed: UInt64(index))
        }
        return try SyntheticMirror(folder: root + "/" + name, files: files)
    }

    /// The mirror of `sizes` packed by `mirror pack` and opened in place.
    func packed(cacheCapacity: Int = 16 << 20) throws -> (site: SyntheticMirror, archive: BundleArchive) {
        let site = try mirror()
        let bundle = root + "/site.tar.gz"
        try BundlePacker().pack(folder: site.folder, to: bundle)
        return (site, try BundleArchive(path: bundle, cacheCapacity: cacheCapacity))
    }

    /// A seed for random choices: `MIRROR_TEST_SEED` replays a failure, else a new one (printed).
    static func seed(_ test: String) -> UInt64 {
        let seed = ProcessInfo.processInfo.environment["MIRROR_TEST_SEED"].flatMap { UInt64($0) } ?? .random(in: 0...UInt64.max)
        print("\(test): MIRROR_TEST_SEED=\(seed)")
        return seed
    }

    /// Every byte `archive` gives for `path` in `range`, nil when it has no such file.
    static func read(_ archive: BundleArchive, _ path: String, range: Range<Int>? = nil) throws -> [UInt8]? {
        var bytes: [UInt8] = []
        let found = try archive.read(path, range: range) { chunk in
            #expect(!chunk.isEmpty && chunk.count <= BundleArchive.chunkSize)
            bytes += chunk
        }
        return found ? bytes : nil
    }

    /// Whole files, their first and last bytes, empty ranges and `count` random ranges of each
    /// file read from `archive` equal the slices of `files`.
    static func expectReadsRight(
        _ archive: BundleArchive, _ files: [String: [UInt8]], seed: UInt64, count: Int = 12,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        var random = SeededGenerator(seed: seed)
        for (path, bytes) in files.sorted(by: { $0.key < $1.key }) {
            #expect(archive.files[path]?.size == bytes.count, "\(path)", sourceLocation: sourceLocation)
            var ranges = [0..<bytes.count, 0..<0, bytes.count..<bytes.count]
            if !bytes.isEmpty {
                ranges += [0..<1, bytes.count - 1..<bytes.count]
                for _ in 0..<count {
                    let start = Int.random(in: 0..<bytes.count, using: &random)
                    ranges.append(start..<Int.random(in: start...bytes.count, using: &random))
                }
            }
            for range in ranges {
                let read = try read(archive, path, range: range)
                #expect(read == Array(bytes[range]), "\(path) \(range) differs", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func everyFileOfACrawledMirrorReadsAsInTheFolder() async throws {
        try await CrawlHarness.with { harness in
            try await TestOrigin.with(site: .named("links")) { origin in
                let report = try await harness.crawl([origin.url("/")])
                #expect(report.failures.isEmpty)
                let bundle = harness.root + "/site.tar.gz"
                try BundlePacker().pack(folder: harness.root + "/out", to: bundle)
                let archive = try BundleArchive(path: bundle)
                let manifest = try harness.manifest()
                #expect(archive.manifest == manifest)
                let folder = FolderContents.mirror(harness.root + "/out")
                #expect(Set(archive.files.keys) == Set(folder.keys))
                #expect(folder.keys.contains { $0.hasPrefix(".mirror/originals/") }, "no kept original: the test proves less")
                for (path, bytes) in folder {
                    #expect(try Self.read(archive, path) == Array(bytes), "\(path) differs")
                }
            }
        }
    }

    @Test(arguments: [0, 16 << 20])
    func everyFileAndRandomRangesReadRight(cacheCapacity: Int) async throws {
        try await offPool {
            let (site, archive) = try packed(cacheCapacity: cacheCapacity)
            #expect(Set(archive.files.keys) == Set(site.files.keys).union([".mirror/manifest.json"]))
            try Self.expectReadsRight(archive, site.files, seed: Self.seed("everyFileAndRandomRangesReadRight(\(cacheCapacity))"))
            // Read twice: the second time from the cache when there is one, the same bytes either way.
            try Self.expectReadsRight(archive, site.files, seed: 1, count: 2)
        }
    }

    /// GNU tar writes one gzip member: reads start at access points inside it (zran), not at its start.
    @Test func aOneMemberBundleMadeByGnuTarReadsInPlace() async throws {
        let site = try mirror()
        let bundle = root + "/gnu.tar.gz"
        _ = try await ChildProcess.output("/usr/bin/tar", ["-czf", bundle, "-C", site.folder, "."])
        let archive = try BundleArchive(path: bundle, cacheCapacity: 0)
        let total = Self.sizes.reduce(0, +)
        #expect(archive.accessPoints.count(where: \.startsMember) == 1)
        #expect(archive.accessPoints.count(where: { !$0.startsMember }) >= total >> 20 - 1, "\(archive.accessPoints.count) points")
        #expect(archive.accessPoints.allSatisfy { $0.window.count < 16 << 10 }, "windows are kept compressed")
        try Self.expectReadsRight(archive, site.files, seed: Self.seed("aOneMemberBundleMadeByGnuTarReadsInPlace"))
    }

    @Test func aPathNotInTheBundleIsNil() throws {
        let (_, archive) = try packed()
        for path in ["pages/missing.html", "pages", "pages/", "", "/pages/page-01.html", "./pages/page-01.html", "PAGES/page-01.html"] {
            #expect(!archive.contains(path), "\(path)")
            #expect(try archive.reader(for: path) == nil, "\(path)")
            #expect(try !archive.read(path) { _ in Issue.record("\(path) gave bytes") })
        }
        #expect(archive.contains("pages/page-01.html"))
    }

    @Test(arguments: [0, 256 << 10])
    func manyThreadsReadAtOnce(cacheCapacity: Int) async throws {
        try await offPool {
            let (site, archive) = try packed(cacheCapacity: cacheCapacity)
            let paths = site.files.keys.sorted()
            let seed = Self.seed("manyThreadsReadAtOnce(\(cacheCapacity))")
            let failures = Locked<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 64) { iteration in
                var random = SeededGenerator(seed: seed &+ UInt64(iteration))
                for _ in 0..<8 {
                    let path = paths.randomElement(using: &random)!
                    let bytes = site.files[path]!
                    let start = Int.random(in: 0...bytes.count, using: &random)
                    let range =
                        Int.random(in: 0..<3, using: &random) == 0
                        ? 0..<bytes.count : start..<Int.random(in: start...bytes.count, using: &random)
                    do {
                        if try Self.read(archive, path, range: range) != Array(bytes[range]) {
                            failures.withLock { $0.append("\(path) \(range) differs") }
                        }
                    } catch {
                        failures.withLock { $0.append("\(path) \(range): \(error)") }
                    }
                }
            }
            #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        }
    }

    /// A member starts every 1 MiB of the tar stream inside large files, and right before a
    /// file's header once the member holds 64 KiB; the same folder packs to the same bytes.
    @Test func membersStartBeforeFilesOnceTheyHold64KiB() async throws {
        try await offPool {
            let site = try mirror()
            let bundle = root + "/site.tar.gz"
            try BundlePacker().pack(folder: site.folder, to: bundle)
            var serial = BundlePacker.Options()
            serial.parallelism = 1
            try BundlePacker(options: serial).pack(folder: site.folder, to: root + "/again.tar.gz")
            #expect(FileManager.default.contents(atPath: bundle) == FileManager.default.contents(atPath: root + "/again.tar.gz"))

            // The tar stream's layout: header blocks, data padded to 512 bytes.
            func blocks(_ size: Int) -> Int { 512 + (size + 511) / 512 * 512 }
            var starts = [0]
            var memberStart = 0
            var position = 0
            func advance(_ count: Int) {
                position += count
                while position - memberStart >= 1 << 20 {
                    memberStart += 1 << 20
                    starts.append(memberStart)
                }
            }
            let manifestSize = try #require(FileManager.default.contents(atPath: site.folder + "/.mirror/manifest.json")).count
            advance(blocks(0) + blocks(manifestSize) + blocks(0))  // .mirror/, its manifest, pages/
            for (_, bytes) in site.files.sorted(by: { $0.key < $1.key }) {
                if position - memberStart >= 64 << 10 {
                    memberStart = position
                    starts.append(position)
                }
                advance(blocks(bytes.count))
            }
            let archive = try BundleArchive(path: bundle)
            #expect(archive.accessPoints.allSatisfy { $0.startsMember }, "no member is over 1 MiB")
            let offsets = archive.accessPoints.map(\.uncompressedOffset)
            #expect(Array(offsets.prefix(starts.count)) == starts)
            // Then the members of the seek table, which hold nothing, at the archive's end.
            let tableMembers = offsets.count - starts.count
            #expect(tableMembers >= 2 && Set(offsets.suffix(tableMembers)).count == 1 && offsets.last! > starts.last!, "\(offsets)")
            #expect(starts.count > 8, "the rule made few members: the test proves little")
        }
    }
}
