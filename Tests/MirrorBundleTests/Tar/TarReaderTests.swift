import MirrorBundle
import Testing

/// Archives the reader accepts although our writer never makes them.
@Suite("TarReader accepts")
struct TarReaderTests {
    @Test("a './' root is skipped, './' prefixes and trailing '/' are dropped, '\\0' is a file")
    func dotSlashAndOldFileType() throws {
        let archive = RawTar.archive([
            RawTar.directory("./"),
            RawTar.directory("./docs/"),
            RawTar.file("./docs/a.txt", Array("a".utf8), type: "\0"),
        ])
        let contents = try TarTestReading.read(archive)
        #expect(
            contents.entries == [
                TarEntry(path: "docs", kind: .directory, size: 0), TarEntry(path: "docs/a.txt", kind: .file, size: 1),
            ])
        #expect(contents.files == ["docs/a.txt": Array("a".utf8)])
    }

    @Test("the ustar prefix field is joined to the name")
    func ustarPrefix() throws {
        let archive = RawTar.archive([RawTar.header(name: "page.html", size: 2, prefix: "site/docs") + RawTar.padded([1, 2])])
        #expect(try TarTestReading.read(archive).files == ["site/docs/page.html": [1, 2]])
    }

    @Test("GNU long names, pax path and size, and ignored pax keys")
    func extendedHeaders() throws {
        let long = String(repeating: "long/", count: 40) + "name.html"
        let archive = RawTar.archive([
            RawTar.gnuLong(long),
            RawTar.file("truncated-name", [7]),
            RawTar.pax([("mtime", "1700000000.5"), ("path", "pax/ü.txt"), ("size", "3"), ("uname", "root")]),
            RawTar.header(name: "ignored", size: 0) + RawTar.padded([1, 2, 3]),
            RawTar.pax([("comment", "anything"), ("mtime", "1")], global: true),
            RawTar.file("after-global", []),
        ])
        let contents = try TarTestReading.read(archive)
        #expect(contents.files == [long: [7], "pax/ü.txt": [1, 2, 3], "after-global": []])
    }

    @Test("a base-256 size field")
    func base256Size() throws {
        let field: [UInt8] = [0x80] + [UInt8](repeating: 0, count: 10) + [4]
        let archive = RawTar.archive([RawTar.header(name: "b", sizeField: field) + RawTar.padded([1, 2, 3, 4])])
        #expect(try TarTestReading.read(archive).files == ["b": [1, 2, 3, 4]])
    }

    @Test("a directory entry after entries inside it")
    func directoryAfterContents() throws {
        let archive = RawTar.archive([RawTar.file("a/b", [1]), RawTar.directory("a/")])
        #expect(try TarTestReading.read(archive).directories == ["a"])
    }

    @Test("zero padding after the end marker, in any amount")
    func zeroPadding() throws {
        let archive = RawTar.archive([RawTar.file("a", [1])]) + [UInt8](repeating: 0, count: 20_000)
        #expect(try TarTestReading.read(archive, chunkSize: 999).files == ["a": [1]])
    }

    @Test("after a refusal every call throws the same error")
    func failureSticks() throws {
        let archive = RawTar.archive([RawTar.file("/abs", [])])
        var reader = TarReader()
        let error = TarError.unsafePath(path: "/abs", problem: .absolute)
        archive.withUnsafeBytes { bytes in
            #expect(throws: error) { try reader.feed(bytes) { _ in } }
            #expect(throws: error) { try reader.feed(bytes) { _ in } }
        }
        #expect(throws: error) { try reader.finish() }
    }
}
