import Foundation
import MirrorCore
import NIOHTTP1
import Testing

@testable import MirrorCache

/// A body is written to a file without a name where the system makes one (Linux), else to a
/// temporary file; each test runs both ways.
@Suite("Body writer")
struct BodyWriterTests {
    let folder = TemporaryDirectory("body-writer")

    func writer(_ store: CacheStore, unnamed: Bool, _ bytes: [UInt8]) throws -> BodyWriter {
        let writer = try BodyWriter(temporary: store.temporary, limit: .max, unnamed: unnamed)
        try writer.write(bytes)
        return writer
    }

    func store(_ store: CacheStore, _ url: String, _ writer: BodyWriter) throws -> CacheEntry {
        let head = CachedResponseHead(status: 200, headers: ["Content-Type": "text/plain"], requestTime: 1000, responseTime: 1001)
        return try store.store(url: url, request: [:], head: head, body: writer)
    }

    /// Whether a writer asked for a file without a name gets one here.
    var makesUnnamedFiles: Bool {
        guard let descriptor = UnnamedFile.open(in: folder.path) else { return false }
        close(descriptor)
        return true
    }

    @Test(arguments: [true, false])
    func aStoredBodyTakesItsDigestsNameAndLeavesNoTemporaryFile(unnamed: Bool) throws {
        let cache = try CacheStore(directory: folder.path)
        let bytes = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let first = try writer(cache, unnamed: unnamed, bytes)
        #expect(folder.files(under: "tmp").count == (unnamed && makesUnnamedFiles ? 0 : 1))
        let entry = try store(cache, "http://a.test/1", first)
        #expect(FileManager.default.contents(atPath: cache.bodyPath(entry.digest)) == Data(bytes))
        #expect(folder.files(under: "tmp").isEmpty)
        // The same body again: the stored file stays, the new one is dropped.
        let again = try store(cache, "http://a.test/2", try writer(cache, unnamed: unnamed, bytes))
        #expect(again.digest == entry.digest)
        #expect(folder.files(under: "bodies").count == 1)
        #expect(folder.files(under: "tmp").isEmpty)
        #expect(try cache.body(of: again)?.collect() == bytes)
    }

    /// A stored file of another size than its digest says (cut short on disk) is replaced by
    /// the next writer of that body.
    @Test(arguments: [true, false])
    func aDamagedStoredFileIsReplaced(unnamed: Bool) throws {
        let cache = try CacheStore(directory: folder.path)
        let bytes = [UInt8](repeating: 9, count: 5000)
        let entry = try store(cache, "http://a.test/1", try writer(cache, unnamed: unnamed, bytes))
        let path = cache.bodyPath(entry.digest)
        #expect(truncate(path, 100) == 0)
        _ = try store(cache, "http://a.test/1", try writer(cache, unnamed: unnamed, bytes))
        #expect(FileManager.default.contents(atPath: path) == Data(bytes))
        #expect(folder.files(under: "tmp").isEmpty)
    }

    /// A body that is not stored is kept as a temporary file for its one reader, who removes it;
    /// once stored, there is nothing to keep.
    @Test(arguments: [true, false])
    func anUnstoredBodyIsKeptAsATemporaryFile(unnamed: Bool) throws {
        let cache = try CacheStore(directory: folder.path)
        let bytes = Array("not for the cache".utf8)
        let kept = try writer(cache, unnamed: unnamed, bytes)
        let path = try kept.keptFile()
        kept.discard()
        #expect(path.hasPrefix(folder.path + "/tmp/"))
        #expect(FileManager.default.contents(atPath: path) == Data(bytes))
        let stored = try writer(cache, unnamed: unnamed, bytes)
        _ = try store(cache, "http://a.test/1", stored)
        #expect(throws: FileSystemError.self) { try stored.keptFile() }
    }

    /// A reader opens the file while it is written and reads on after it is stored.
    @Test(arguments: [true, false])
    func aReaderFollowsTheFileAsItIsWrittenAndStored(unnamed: Bool) throws {
        let cache = try CacheStore(directory: folder.path)
        let writer = try writer(cache, unnamed: unnamed, Array("first".utf8))
        let descriptor = try PosixFile.open(writer.readablePath, flags: O_RDONLY)
        defer { close(descriptor) }
        try writer.write(Array(" second".utf8))
        _ = try store(cache, "http://a.test/1", writer)
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = try buffer.withUnsafeMutableBytes { try PosixFile.read(descriptor, at: 0, into: $0, path: "body") }
        #expect(Array(buffer[..<count]) == Array("first second".utf8))
    }

    /// A writer dropped before its body is stored (a failed download) leaves no file behind.
    @Test(arguments: [true, false])
    func aDroppedWriterLeavesNothing(unnamed: Bool) throws {
        let cache = try CacheStore(directory: folder.path)
        do { _ = try writer(cache, unnamed: unnamed, [UInt8](repeating: 1, count: 1000)) }
        #expect(folder.files(under: "tmp").isEmpty)
        #expect(folder.files(under: "bodies").isEmpty)
    }
}
