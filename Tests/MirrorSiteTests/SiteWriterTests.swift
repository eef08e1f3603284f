import Foundation
import MirrorSite
import MirrorTestSupport
import NIOHTTP1
import Testing

/// `SiteWriter` on its own: responses written, then the folder finished.
@Suite("Site writer")
struct SiteWriterTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("site-writer-\(UUID().uuidString)").path

    func page(_ html: String) -> PageInMemory {
        PageInMemory(html)
    }

    func text(_ path: String) throws -> String { try String(contentsOfFile: folder + "/" + path, encoding: .utf8) }

    /// The rewriting notes its files in slices of 4,096: a site of more pages has every page
    /// rewritten and noted, in the last slice as in the first.
    @Test func aSiteOfMorePagesThanASliceIsRewrittenThroughout() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let writer = try SiteWriter(directory: folder, ledger: MemorySiteLedger())
        let count = 4_096 + 50
        for page in 0..<count {
            try await writer.write(
                url: "http://h.test/p/\(page).html", response: self.page("<a href=\"/p/\((page + 1) % count).html\">next</a>"))
        }
        try writer.finish(seeds: ["http://h.test/p/0.html"])
        let manifest = try JSONDecoder().decode(
            SiteManifest.self, from: Data(contentsOf: URL(fileURLWithPath: folder + "/.mirror/manifest.json")))
        #expect(manifest.resources.count == count)
        #expect(manifest.resources.values.filter { $0.file == nil || $0.rewrittenFor == nil }.count == 0)
        for page in [0, 4_095, 4_096, count - 1] {
            let path = manifest.resources["http://h.test/p/\(page).html"]!.path
            #expect(try text(path) == "<a href=\"\((page + 1) % count).html\">next</a>", "\(path)")
        }
    }

    /// A rewrite that fails in a later slice (a folder stands where a page's file was) fails the
    /// finish and leaves no manifest, with the pages before it rewritten. Once the file is back,
    /// the next finish writes one that lists every page rewritten.
    @Test(.timeLimit(.minutes(1))) func aRewriteThatFailsLeavesNoManifest() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let writer = try SiteWriter(directory: folder, ledger: MemorySiteLedger())
        let count = 5_000
        var paths: [String] = []
        for page in 0..<count {
            paths.append(
                try await writer.write(
                    url: "http://h.test/p/\(page).html", response: self.page("<a href=\"/p/\((page + 1) % count).html\">next</a>")))
        }
        // The last page in the byte order of URLs, in the last slice.
        let last = try #require((0..<count).map { "http://h.test/p/\($0).html" }.max { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        let lastPath = paths[Int(last.dropFirst("http://h.test/p/".count).dropLast(".html".count))!]
        let held = folder + "/" + lastPath + ".held"
        try FileManager.default.moveItem(atPath: folder + "/" + lastPath, toPath: held)
        try FileManager.default.createDirectory(atPath: folder + "/" + lastPath, withIntermediateDirectories: false)
        #expect(throws: SiteError.self) { try writer.finish(seeds: ["http://h.test/p/0.html"]) }
        #expect(!FileManager.default.fileExists(atPath: folder + "/.mirror/manifest.json"))
        #expect(try text(paths[0]) == "<a href=\"1.html\">next</a>")
        try FileManager.default.removeItem(atPath: folder + "/" + lastPath)
        try FileManager.default.moveItem(atPath: held, toPath: folder + "/" + lastPath)
        try writer.finish(seeds: ["http://h.test/p/0.html"])
        let manifest = try JSONDecoder().decode(
            SiteManifest.self, from: Data(contentsOf: URL(fileURLWithPath: folder + "/.mirror/manifest.json")))
        #expect(manifest.resources.count == count)
        #expect(manifest.resources.values.filter { $0.file == nil || $0.rewrittenFor == nil }.count == 0)
    }

    /// Once finished, the writer lets go of its names; a write after that still gets a name no
    /// other URL holds (here one that differs from a saved one only in case).
    @Test func aWriteAfterFinishingKeepsNamesUnique() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let writer = try SiteWriter(directory: folder, ledger: MemorySiteLedger())
        let first = try await writer.write(url: "http://h.test/a.html", response: page("first"))
        try writer.finish(seeds: ["http://h.test/a.html"])
        let second = try await writer.write(url: "http://h.test/A.html", response: page("second"))
        #expect(second.lowercased() != first.lowercased())
        #expect(try text(first) == "first")
        #expect(try text(second) == "second")
    }

    /// A response that could not be saved (here a folder stands where its file goes) leaves no
    /// name behind: links to its URL stay absolute, not paths to a file that is not there.
    @Test func aURLWhoseFileCouldNotBeSavedIsLinkedAbsolutely() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let writer = try SiteWriter(directory: folder, ledger: MemorySiteLedger())
        let page = try await writer.write(url: "http://h.test/a.html", response: page("<a href=\"b.html\">b</a>"))
        try FileManager.default.createDirectory(atPath: folder + "/h.test/b.html/in-the-way", withIntermediateDirectories: true)
        await #expect(throws: SiteError.self) {
            try await writer.write(url: "http://h.test/b.html", response: self.page("b"))
        }
        try writer.finish(seeds: ["http://h.test/a.html"])
        #expect(try text(page) == "<a href=\"http://h.test/b.html\">b</a>")
        let manifest = try JSONDecoder().decode(
            SiteManifest.self, from: Data(contentsOf: URL(fileURLWithPath: folder + "/.mirror/manifest.json")))
        #expect(manifest.resources.keys.sorted() == ["http://h.test/a.html"])
    }

    /// An index that cannot be made fails the finish before the manifest is written, with the
    /// links rewritten and each page's original kept: the next finish starts from there.
    @Test func anIndexThatFailsLeavesNoManifest() async throws {
        struct IndexFailed: Error {}
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let writer = try SiteWriter(directory: folder, ledger: MemorySiteLedger())
        let path = try await writer.write(url: "http://h.test/a.html", response: page("<a href=\"http://h.test/a.html#top\">a</a>"))
        #expect(throws: IndexFailed.self) {
            try writer.finish(seeds: ["http://h.test/a.html"], searchIndex: { _ in throw IndexFailed() })
        }
        #expect(!FileManager.default.fileExists(atPath: folder + "/.mirror/manifest.json"))
        #expect(try text(path) == "<a href=\"a.html#top\">a</a>")
        let originals = try FileManager.default.contentsOfDirectory(atPath: folder + "/" + SiteManifest.originalsFolder)
        #expect(originals.count == 1)
        try writer.finish(seeds: ["http://h.test/a.html"])
        #expect(FileManager.default.fileExists(atPath: folder + "/.mirror/manifest.json"))
    }
}
