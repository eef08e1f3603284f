import MirrorBundle
import Testing

@Suite("TarWriter")
struct TarWriterTests {
    /// The text of a NUL-terminated field of a header block.
    private func field(_ block: some Collection<UInt8>, _ offset: Int, _ width: Int) -> String {
        let bytes = block.dropFirst(offset).prefix(width)
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    @Test("headers are reproducible ustar: mtime, uid and gid 0, no owner names, fixed modes")
    func headerFields() throws {
        var writer = TarWriter()
        var output: [UInt8] = []
        try writer.appendDirectory(path: "docs", to: &output)
        try writer.appendFile(path: "docs/a.txt", contents: Array("hello".utf8), to: &output)
        let directory = Array(output[0..<512])
        let file = Array(output[512..<1024])
        #expect(field(directory, 0, 100) == "docs/")
        #expect(field(directory, 100, 8) == "0000755")
        #expect(directory[156] == UInt8(ascii: "5"))
        #expect(field(file, 0, 100) == "docs/a.txt")
        #expect(field(file, 100, 8) == "0000644")
        #expect(field(file, 124, 12) == "00000000005")
        #expect(file[156] == UInt8(ascii: "0"))
        for block in [directory, file] {
            #expect(field(block, 108, 8) == "0000000")
            #expect(field(block, 116, 8) == "0000000")
            #expect(field(block, 136, 12) == "00000000000")
            #expect(Array(block.dropFirst(257).prefix(8)) == Array("ustar\u{0}00".utf8))
            #expect(field(block, 265, 32).isEmpty && field(block, 297, 32).isEmpty)
            let sum = block.enumerated().reduce(0) { $0 + ((148..<156).contains($1.offset) ? 32 : Int($1.element)) }
            #expect(field(block, 148, 8) == String(sum, radix: 8).leftPadded(to: 6))
        }
        #expect(output.count == 1536)
        #expect(Array(output[1024..<1029]) == Array("hello".utf8))
        #expect(output[1029...].allSatisfy { $0 == 0 })
    }

    @Test("a long or non-ASCII path goes into a pax header named after its last component")
    func paxPath() throws {
        let long = String(repeating: "d/", count: 60) + "file.html"
        for path in [long, "café.html"] {
            var writer = TarWriter()
            var output: [UInt8] = []
            try writer.appendFile(path: path, contents: [1], to: &output)
            #expect(output[156] == UInt8(ascii: "x"))
            #expect(field(output[0..<512], 0, 100) == (path == long ? "PaxHeaders/file.html" : "PaxHeaders/caf__.html"))
            let record = RawTar.record("path", path)
            #expect(Array(output[512..<(512 + record.count)]) == record)
            #expect(output[1024 + 156] == UInt8(ascii: "0"))
        }
    }

    @Test("a size of 8 GiB or more goes into a pax header and a base-256 size field")
    func hugeSize() throws {
        let size: Int64 = 9 << 30
        var writer = TarWriter()
        var output: [UInt8] = []
        try writer.appendFileHeader(path: "huge.bin", size: size, to: &output)
        #expect(field(output[512..<1024], 0, 512) == "19 size=\(size)\n")
        #expect(output[1024 + 124] == 0x80)
        var limits = TarLimits()
        limits.maxEntrySize = size
        var reader = TarReader(limits: limits)
        var entries: [TarEntry] = []
        try output.withUnsafeBytes { bytes in
            try reader.feed(bytes) { if case .begin(let entry) = $0 { entries.append(entry) } }
        }
        #expect(entries == [TarEntry(path: "huge.bin", kind: .file, size: size)])
        #expect(throws: TarError.truncated(path: "huge.bin", in: .data)) { try reader.finish() }
    }

    @Test("paths are normalized: leading ./ and a directory's trailing / are dropped")
    func normalizedPaths() throws {
        var writer = TarWriter()
        var output: [UInt8] = []
        try writer.appendDirectory(path: "./docs/", to: &output)
        try writer.appendFile(path: "./docs/a", contents: [], to: &output)
        writer.finish(to: &output)
        let contents = try TarTestReading.read(output)
        #expect(contents.entries.map(\.path) == ["docs", "docs/a"])
    }

    @Test(
        "unsafe paths are refused",
        arguments: [
            ("/etc/passwd", TarError.PathProblem.absolute), ("../x", .parentComponent), ("a/../../x", .parentComponent),
            ("a//b", .emptyComponent), ("a\\b", .backslash), ("C:/x", .driveLetter), ("", .empty), (".", .empty),
            ("a/./b", .currentComponent), (String(repeating: "a", count: 4097), .tooLong(limit: 4096)),
        ])
    func unsafePaths(path: String, problem: TarError.PathProblem) {
        var writer = TarWriter()
        var output: [UInt8] = []
        #expect(throws: TarError.unsafePath(path: path, problem: problem)) {
            try writer.appendFile(path: path, contents: [], to: &output)
        }
        #expect(output.isEmpty)
    }

    @Test("duplicates and names that collide on macOS or Windows are refused")
    func conflicts() throws {
        var writer = TarWriter()
        var output: [UInt8] = []
        try writer.appendFile(path: "a/Index.html", contents: [], to: &output)
        #expect(throws: TarError.duplicate(path: "a/Index.html")) {
            try writer.appendFile(path: "a/Index.html", contents: [], to: &output)
        }
        #expect(throws: TarError.caseConflict(path: "a/index.html", other: "a/Index.html")) {
            try writer.appendFile(path: "a/index.html", contents: [], to: &output)
        }
        #expect(throws: TarError.fileUsedAsDirectory(file: "a/Index.html", entry: "a/Index.html/x")) {
            try writer.appendDirectory(path: "a/Index.html/x", to: &output)
        }
        #expect(throws: TarError.fileUsedAsDirectory(file: "a", entry: "a/Index.html")) {
            try writer.appendFile(path: "a", contents: [], to: &output)
        }
        try writer.appendDirectory(path: "a", to: &output)
    }

    @Test("data that does not match the declared size is refused")
    func sizeMismatch() throws {
        var writer = TarWriter()
        var output: [UInt8] = []
        try writer.appendFileHeader(path: "short", size: 3, to: &output)
        try ([1, 2] as [UInt8]).withUnsafeBytes { try writer.appendFileData($0, to: &output) }
        #expect(throws: TarError.sizeMismatch(path: "short", declared: 3, written: 2)) { try writer.endFile(to: &output) }

        var other = TarWriter()
        try other.appendFileHeader(path: "long", size: 1, to: &output)
        #expect(throws: TarError.sizeMismatch(path: "long", declared: 1, written: 2)) {
            try ([1, 2] as [UInt8]).withUnsafeBytes { try other.appendFileData($0, to: &output) }
        }
    }
}

private extension String {
    func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
