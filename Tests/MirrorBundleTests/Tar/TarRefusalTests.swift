import MirrorBundle
import Testing

/// Hostile and damaged archives: each is refused with a specific error that names the entry.
@Suite("TarReader refuses")
struct TarRefusalTests {
    /// Expects `archive` to be refused with an error `matches` accepts and whose description mentions `path`.
    private func expectRefusal(
        _ archive: [UInt8], limits: TarLimits = .default, mentions path: String,
        sourceLocation: SourceLocation = #_sourceLocation, _ matches: (TarError) -> Bool
    ) {
        guard let error = TarTestReading.refusal(archive, limits: limits, sourceLocation: sourceLocation) else {
            Issue.record("the archive was accepted", sourceLocation: sourceLocation)
            return
        }
        #expect(matches(error), "unexpected error: \(error)", sourceLocation: sourceLocation)
        #expect(error.description.contains(path), "\"\(error)\" does not mention \(path)", sourceLocation: sourceLocation)
    }

    private func unsafe(_ problem: TarError.PathProblem) -> (TarError) -> Bool {
        { if case .unsafePath(_, problem) = $0 { true } else { false } }
    }

    // MARK: Paths

    @Test func absolutePath() {
        expectRefusal(RawTar.archive([RawTar.file("/etc/passwd", [])]), mentions: "/etc/passwd", unsafe(.absolute))
    }

    @Test func parentPath() {
        expectRefusal(RawTar.archive([RawTar.file("../x", [])]), mentions: "../x", unsafe(.parentComponent))
    }

    @Test func nestedParentPath() {
        expectRefusal(RawTar.archive([RawTar.file("a/../../x", [])]), mentions: "a/../../x", unsafe(.parentComponent))
    }

    @Test func paxPathWithParent() {
        let archive = RawTar.archive([RawTar.pax([("path", "../evil")]), RawTar.file("innocent", [1])])
        expectRefusal(archive, mentions: "../evil", unsafe(.parentComponent))
    }

    @Test func gnuLongNameWithParent() {
        let evil = String(repeating: "a/", count: 60) + String(repeating: "../", count: 70) + "etc/cron.d/evil"
        let archive = RawTar.archive([RawTar.gnuLong(evil), RawTar.file("innocent", [1])])
        expectRefusal(archive, mentions: evil, unsafe(.parentComponent))
    }

    @Test func otherUnsafePaths() {
        let cases: [(path: String, problem: TarError.PathProblem, shown: String)] = [
            ("a\\..\\x", .backslash, "a\\..\\x"), ("C:\\Windows", .backslash, "C:\\Windows"), ("c:x", .driveLetter, "c:x"),
            ("a//b", .emptyComponent, "a//b"), ("a/./b", .currentComponent, "a/./b"), ("file/", .emptyComponent, "file/"),
            ("a\u{0}b", .nulByte, "a\\0b"), (String(repeating: "x/", count: 2049), .tooLong(limit: 4096), "x/x/x/x/"),
        ]
        for (path, problem, shown) in cases {
            let archive = RawTar.archive([RawTar.pax([("path", path)]), RawTar.file("innocent", [])])
            expectRefusal(archive, mentions: shown, unsafe(problem))
        }
    }

    @Test func emptyName() {
        expectRefusal(RawTar.archive([RawTar.file("", [1])]), mentions: "\"\"", unsafe(.empty))
    }

    @Test func invalidUTF8() {
        let archive = RawTar.archive([RawTar.header(rawName: Array("caf".utf8) + [0xE9])])
        expectRefusal(archive, mentions: "caf", unsafe(.notUTF8))
    }

    // MARK: Entry types

    @Test func symlinkOutside() {
        let archive = RawTar.archive([RawTar.header(name: "passwd", type: "2", linkName: "/etc/passwd")])
        expectRefusal(archive, mentions: "/etc/passwd") { $0 == .link(path: "passwd", target: "/etc/passwd", hard: false) }
        #expect(TarTestReading.refusal(archive)?.description.contains("links are not allowed in a bundle") == true)
    }

    @Test func symlinkInside() {
        let archive = RawTar.archive([
            RawTar.file("docs/v2/index.html", [1]), RawTar.header(name: "docs/latest", type: "2", linkName: "v2"),
        ])
        expectRefusal(archive, mentions: "docs/latest") { $0 == .link(path: "docs/latest", target: "v2", hard: false) }
    }

    @Test func longSymlinkTarget() {
        let target = String(repeating: "../", count: 50) + "etc/shadow"
        let archive = RawTar.archive([RawTar.gnuLong(target, type: "K"), RawTar.header(name: "s", type: "2", linkName: "x")])
        expectRefusal(archive, mentions: target) { $0 == .link(path: "s", target: target, hard: false) }
    }

    @Test func hardLink() {
        let archive = RawTar.archive([RawTar.file("a", [1]), RawTar.header(name: "b", type: "1", linkName: "a")])
        expectRefusal(archive, mentions: "\"b\"") { $0 == .link(path: "b", target: "a", hard: true) }
    }

    @Test("devices, FIFOs, contiguous files and unknown types", arguments: ["3", "4", "6", "7", "S", "V", "D", "Z"] as [Character])
    func unsupportedType(type: Character) {
        let archive = RawTar.archive([RawTar.header(name: "dev/thing", type: type)])
        expectRefusal(archive, mentions: "dev/thing") { $0 == .unsupportedType(path: "dev/thing", type: type.asciiValue!) }
    }

    @Test func characterDeviceWording() {
        let error = TarTestReading.refusal(RawTar.archive([RawTar.header(name: "null", type: "3")]))
        #expect(error?.description.contains("character device") == true)
    }

    // MARK: Duplicates and conflicts

    @Test func duplicate() {
        let archive = RawTar.archive([RawTar.file("a.html", [1]), RawTar.file("a.html", [2])])
        expectRefusal(archive, mentions: "a.html") { $0 == .duplicate(path: "a.html") }
    }

    @Test func caseOnlyConflict() {
        let archive = RawTar.archive([RawTar.file("docs/Index.html", [1]), RawTar.file("docs/index.html", [2])])
        expectRefusal(archive, mentions: "docs/index.html") {
            $0 == .caseConflict(path: "docs/index.html", other: "docs/Index.html")
        }
    }

    @Test func caseConflictInDirectory() {
        let archive = RawTar.archive([RawTar.file("Docs/a", [1]), RawTar.file("docs/b", [2])])
        expectRefusal(archive, mentions: "docs/b") { $0 == .caseConflict(path: "docs/b", other: "Docs") }
    }

    @Test func normalizationConflict() {
        let composed = "caf\u{E9}.html"
        let decomposed = "cafe\u{301}.html"
        let archive = RawTar.archive([RawTar.file(composed, [1]), RawTar.file(decomposed, [2])])
        expectRefusal(archive, mentions: decomposed) { $0 == .caseConflict(path: decomposed, other: composed) }
    }

    @Test func fileThenDirectoryPrefix() {
        let archive = RawTar.archive([RawTar.file("a", [1]), RawTar.file("a/b", [2])])
        expectRefusal(archive, mentions: "a/b") { $0 == .fileUsedAsDirectory(file: "a", entry: "a/b") }
    }

    @Test func directoryPrefixThenFile() {
        let archive = RawTar.archive([RawTar.file("a/b/c", [1]), RawTar.file("a/b", [2])])
        expectRefusal(archive, mentions: "a/b/c") { $0 == .fileUsedAsDirectory(file: "a/b", entry: "a/b/c") }
    }

    @Test func fileThenSameDirectory() {
        let archive = RawTar.archive([RawTar.file("a", [1]), RawTar.directory("a/")])
        expectRefusal(archive, mentions: "\"a\"") { $0 == .duplicate(path: "a") }
    }

    // MARK: Limits

    @Test func entryOverSizeLimit() {
        let archive = RawTar.archive([RawTar.file("big.bin", [UInt8](repeating: 1, count: 11))])
        expectRefusal(archive, limits: TarLimits(maxEntrySize: 10), mentions: "big.bin") {
            $0 == .entryTooLarge(path: "big.bin", size: 11, limit: 10)
        }
    }

    @Test func defaultEntryLimitFromHeaderAlone() {
        let archive = RawTar.header(name: "5GiB.bin", size: 5 << 30)
        expectRefusal(archive, mentions: "5GiB.bin") { $0 == .entryTooLarge(path: "5GiB.bin", size: 5 << 30, limit: 4 << 30) }
    }

    @Test func totalOverLimit() {
        let archive = RawTar.archive((0..<4).map { RawTar.file("f\($0)", [UInt8](repeating: 1, count: 10)) })
        expectRefusal(archive, limits: TarLimits(maxTotalSize: 35), mentions: "f3") {
            $0 == .totalTooLarge(path: "f3", total: 40, limit: 35)
        }
    }

    @Test func tooManyEntries() {
        let archive = RawTar.archive((0..<4).map { RawTar.file("f\($0)", []) })
        expectRefusal(archive, limits: TarLimits(maxEntryCount: 3), mentions: "f3") { $0 == .tooManyEntries(path: "f3", limit: 3) }
    }

    @Test func paxHeaderOverLimit() {
        let archive = RawTar.archive([RawTar.pax([("comment", String(repeating: "x", count: 1 << 20))]), RawTar.file("a")])
        expectRefusal(archive, mentions: "PaxHeaders/entry") {
            if case .extendedHeaderTooLarge("PaxHeaders/entry", _, 1 << 20, 0) = $0 { true } else { false }
        }
    }

    @Test func gnuLongNameOverLimit() {
        let archive = RawTar.header(name: "././@LongLink", type: "L", size: 2 << 20, gnuMagic: true)
        expectRefusal(archive, mentions: "@LongLink") {
            $0 == .extendedHeaderTooLarge(path: "././@LongLink", size: 2 << 20, limit: 1 << 20, offset: 0)
        }
    }

    // MARK: Damaged headers

    @Test func badChecksum() {
        let archive = RawTar.archive([RawTar.file("ok", [1]), RawTar.header(name: "damaged.html", checksumDelta: 1)])
        expectRefusal(archive, mentions: "damaged.html") { $0 == .badChecksum(path: "damaged.html", offset: 1024) }
    }

    @Test(
        "malformed size fields",
        arguments: [
            Array("0000000001x\0".utf8), Array("           \0".utf8), Array("00000000009\0".utf8),
            [0xFF] + [UInt8](repeating: 0xFF, count: 11), [0x80] + [UInt8](repeating: 0xFF, count: 11),
        ])
    func badSizeField(field: [UInt8]) {
        let archive = RawTar.archive([RawTar.header(name: "weird.bin", sizeField: field)])
        expectRefusal(archive, mentions: "weird.bin") { $0 == .badNumericField(path: "weird.bin", field: "size", offset: 0) }
    }

    @Test(
        "malformed pax records",
        arguments: [
            "11 path=a\n", "path=a\n", "7 path=\n", "6 path\n", "99 path=a\n", "8 =abcd\n", "x",
        ])
    func badPaxRecord(body: String) {
        let archive = RawTar.archive([RawTar.pax(body: Array(body.utf8), name: "PaxHeaders/bad"), RawTar.file("a")])
        expectRefusal(archive, mentions: "PaxHeaders/bad") {
            if case .badPaxRecord("PaxHeaders/bad", _, 0) = $0 { true } else { false }
        }
    }

    @Test func badPaxSize() {
        let archive = RawTar.archive([RawTar.pax([("size", "-1")], name: "PaxHeaders/neg"), RawTar.file("a")])
        expectRefusal(archive, mentions: "PaxHeaders/neg") {
            if case .badPaxRecord("PaxHeaders/neg", _, 0) = $0 { true } else { false }
        }
    }

    @Test func globalPath() {
        let archive = RawTar.archive([RawTar.pax([("path", "evil/x")], global: true), RawTar.file("a")])
        expectRefusal(archive, mentions: "evil/x") { $0 == .globalOverride(key: "path", value: "evil/x", offset: 0) }
    }

    @Test func extendedHeaderWithoutEntry() {
        let archive = RawTar.archive([RawTar.pax([("path", "lost")], name: "PaxHeaders/lost")])
        expectRefusal(archive, mentions: "PaxHeaders/lost") {
            if case .malformedHeader("PaxHeaders/lost", _, 1024) = $0 { true } else { false }
        }
    }

    @Test func directoryWithData() {
        let archive = RawTar.archive([RawTar.header(name: "dir/", type: "5", size: 5) + RawTar.padded([1, 2, 3, 4, 5])])
        expectRefusal(archive, mentions: "dir/") { if case .malformedHeader("dir/", _, 0) = $0 { true } else { false } }
    }

    // MARK: Truncation and trailing data

    @Test func truncatedHeader() {
        let archive = RawTar.file("first", [1]) + RawTar.header(name: "second").prefix(300)
        expectRefusal(archive, mentions: "first") { $0 == .truncated(path: "first", in: .header) }
    }

    @Test func truncatedData() {
        let archive = Array(RawTar.file("cut.bin", [UInt8](repeating: 1, count: 1000)).prefix(512 + 700))
        expectRefusal(archive, mentions: "cut.bin") { $0 == .truncated(path: "cut.bin", in: .data) }
    }

    @Test func truncatedPadding() {
        let archive = Array(RawTar.file("pad.bin", [1, 2, 3]).prefix(512 + 100))
        expectRefusal(archive, mentions: "pad.bin") { $0 == .truncated(path: "pad.bin", in: .padding) }
    }

    @Test func missingEndMarker() {
        let archive = RawTar.archive([RawTar.file("last", [1])], end: false)
        expectRefusal(archive, mentions: "last") { $0 == .truncated(path: "last", in: .endMarker) }
    }

    @Test func loneZeroBlock() {
        let archive = RawTar.file("last", [1]) + [UInt8](repeating: 0, count: 512)
        expectRefusal(archive, mentions: "last") { $0 == .truncated(path: "last", in: .endMarker) }
    }

    @Test func garbageAfterEnd() {
        let archive = RawTar.archive([RawTar.file("a", [1])]) + [0, 0, 0, 0x41]
        expectRefusal(archive, mentions: "data after the end of the archive") { $0 == .dataAfterEnd(offset: 2051) }
    }

    @Test func entryAfterOneZeroBlock() {
        let archive = RawTar.file("a", [1]) + [UInt8](repeating: 0, count: 512) + RawTar.archive([RawTar.file("hidden")])
        expectRefusal(archive, mentions: "data after the end of the archive") { $0 == .dataAfterEnd(offset: 1536) }
    }

    @Test func controlCharactersAreEscaped() {
        let error = TarTestReading.refusal(RawTar.archive([RawTar.file("/\u{1B}[2Jx", [])]))
        #expect(error?.description.contains("\u{1B}") == false)
        #expect(error?.description.contains("\\u{1B}[2Jx") == true)
    }
}
