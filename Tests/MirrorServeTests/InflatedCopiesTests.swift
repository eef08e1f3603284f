import Foundation
import MirrorBundle
import MirrorSite
import NIOCore
import Testing

@testable import MirrorServe

/// A bundle's files inflated whole once are sent from their copy afterwards; a copy counts only
/// when all of it was written, and the file of copies leaves nothing behind.
@Suite("mirror serve: a bundle's inflated copies")
struct InflatedCopiesTests {
    /// The crawled fixture site packed into a bundle, and the 1.5 MB file in it.
    struct Bundle {
        let mirror: ServedMirror
        let path: String
        var bundle: String { mirror.folder + ".tar.gz" }
        var copies: String { mirror.harness.root + "/copies" }
        var whole: Range<Int> { 0..<ServedMirror.binary.count }

        /// Runs `body` with a new bundle, served as `ServedMirror.with` serves it.
        static func with(_ body: (Bundle) async throws -> Void) async throws {
            try await ServedMirror.with(.bundle) { mirror in
                let path = try #require(mirror.manifest.path(for: mirror.origin.url("/media/film.bin")))
                try FileManager.default.createDirectory(atPath: mirror.harness.root + "/copies", withIntermediateDirectories: true)
                try await body(Bundle(mirror: mirror, path: path))
            }
        }

        func files(limit: Int = 1 << 30) throws -> BundleFiles {
            try BundleFiles(bundle: bundle, copyDirectory: copies, copyLimit: limit)
        }
    }

    /// All the bytes of a file opened to be read piece by piece.
    func drain(_ file: SiteFile?) throws -> [UInt8] {
        guard case .reader(let reader)? = file else {
            Issue.record("not a reader: \(String(describing: file))")
            return []
        }
        defer { reader.close() }
        var bytes: [UInt8] = []
        while let piece = try reader.next() { bytes += piece.readableBytesView }
        return bytes
    }

    /// The bytes a descriptor's file holds where `start` says, as the kernel would send them.
    func sent(_ file: SiteFile?) throws -> [UInt8]? {
        guard case .descriptor(let handle, let size, let start)? = file else { return nil }
        defer { try? handle.close() }
        var bytes = [UInt8](repeating: 0, count: size)
        let count = try handle.withUnsafeFileDescriptor { descriptor in
            bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, size, off_t(start)) }
        }
        return count == size ? bytes : nil
    }

    @Test func aFileReadWholeIsSentFromItsCopyAfterwardsAndTheCopyHasNoName() async throws {
        try await Bundle.with { bundle in
            let files = try bundle.files()
            #expect(try FileManager.default.contentsOfDirectory(atPath: bundle.copies).isEmpty, "the file of copies has no name")
            #expect(files.openQuickly(bundle.path, range: bundle.whole) == nil, "nothing is copied before it is read")
            #expect(try drain(files.open(bundle.path, range: bundle.whole)) == ServedMirror.binary)
            #expect(try sent(files.openQuickly(bundle.path, range: bundle.whole)) == ServedMirror.binary)
            #expect(try sent(files.open(bundle.path, range: 1000..<2000)) == ServedMirror.binary, "a range is sent from the copy too")
            #expect(try FileManager.default.contentsOfDirectory(atPath: bundle.copies).isEmpty)
        }
    }

    @Test func aReadCutShortOrARangeLeavesNoCopy() async throws {
        try await Bundle.with { bundle in
            let files = try bundle.files()
            #expect(try drain(files.open(bundle.path, range: 1000..<400_000)) == Array(ServedMirror.binary[1000..<400_000]))
            guard case .reader(let reader)? = try files.open(bundle.path, range: bundle.whole) else {
                Issue.record("not a reader")
                return
            }
            _ = try reader.next()
            reader.close()  // the client hung up
            #expect(files.openQuickly(bundle.path, range: bundle.whole) == nil)
            #expect(try drain(files.open(bundle.path, range: bundle.whole)) == ServedMirror.binary, "the next whole read copies again")
            #expect(try sent(files.openQuickly(bundle.path, range: bundle.whole)) == ServedMirror.binary)
        }
    }

    /// A video player asks for a whole file, then hangs up to ask for ranges: the room of the
    /// copy it abandoned is used again, or a few plays would fill the limit with nothing.
    @Test func theRoomOfAnAbandonedCopyIsUsedAgain() async throws {
        try await Bundle.with { bundle in
            let files = try bundle.files(limit: ServedMirror.binary.count)
            for _ in 0..<3 {
                guard case .reader(let reader)? = try files.open(bundle.path, range: bundle.whole) else {
                    Issue.record("not a reader")
                    return
                }
                _ = try reader.next()
                reader.close()
            }
            #expect(try drain(files.open(bundle.path, range: bundle.whole)) == ServedMirror.binary)
            #expect(try sent(files.openQuickly(bundle.path, range: bundle.whole)) == ServedMirror.binary)
        }
    }

    @Test func filesPastTheLimitAreInflatedEveryTime() async throws {
        try await Bundle.with { bundle in
            let files = try bundle.files(limit: ServedMirror.binary.count - 1)
            for _ in 0..<2 {
                #expect(try drain(files.open(bundle.path, range: bundle.whole)) == ServedMirror.binary)
            }
            #expect(files.openQuickly(bundle.path, range: bundle.whole) == nil)
        }
    }

    @Test func readersOfOneFileAtOnceMakeOneCopy() async throws {
        try await Bundle.with { bundle in
            let files = try bundle.files(limit: ServedMirror.binary.count)
            let readers = try (0..<4).map { _ in try files.open(bundle.path, range: bundle.whole) }
            let results = try await withThrowingTaskGroup(of: [UInt8].self) { group in
                for reader in readers { group.addTask { try drain(reader) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.count == 4 && results.allSatisfy { $0 == ServedMirror.binary })
            #expect(
                try sent(files.openQuickly(bundle.path, range: bundle.whole)) == ServedMirror.binary,
                "one copy, within a limit that holds only one")
        }
    }

    @Test func withoutAPlaceForCopiesEveryReadInflates() async throws {
        try await Bundle.with { bundle in
            let files = try BundleFiles(bundle: bundle.bundle, copyDirectory: bundle.copies + "/missing", copyLimit: 1 << 30)
            for _ in 0..<2 {
                #expect(try drain(files.open(bundle.path, range: bundle.whole)) == ServedMirror.binary)
            }
            #expect(files.openQuickly(bundle.path, range: bundle.whole) == nil)
        }
    }
}
