import Foundation
import MirrorTestSupport
import Testing

@testable import MirrorHTML

/// The fixture pages with hostile bytes inserted anywhere (NUL, invalid UTF-8, quotes, `<`,
/// comments, titles, raw text, char references): every link libxml2 reports is placed in the
/// bytes, so the rewriter changes it. (A tag libxml2 reads out of another attribute's quoted
/// value, `<img x&="y src=b.png">`, is still not placed; these insertions make none.)
@Suite struct HostilePageTests {
    static let pages: [[UInt8]] = ["plain", "links", "malformed"].flatMap { site in
        let folder = FixtureSite.named(site).root
        return (FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? [])
            .filter { $0.hasSuffix(".html") }.sorted()
            .compactMap { FileManager.default.contents(atPath: folder.appendingPathComponent($0).path).map(Array.init) }
    }

    static let insertions: [[UInt8]] =
        [
            "\0", "<title>", "<textarea>", "<!--", "--!>", "-->", "\"", "'", "<", ">", "</", "<!", "<?", "<![CDATA[", "=", " ",
            "&", "&#", "&#0;", "&amp;", "<a href=/x.html>", "<a href='", "<img src=", "<p ", "/", "<script>", "</script>",
            "<style>", "<svg>", "<table>", "</p>", "<noscript>", "\t", "\r\n", "<base href=/b/>",
            "<meta http-equiv=refresh content=\"0;url=/r.html\">", "<div style=\"background:url(/s.png)\">",
        ].map { Array($0.utf8) } + [[0xFF], [0xC3], [0xE2, 0x82], [0xF0, 0x28]]

    @Test func everyLinkOfAHostilePageIsPlaced() {
        #expect(Self.pages.count > 20)
        var random = SeededGenerator(seed: 11)
        var unplaced: [String] = []
        for _ in 0..<3000 {
            var page = Self.pages.randomElement(using: &random)!
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                page.insert(contentsOf: Self.insertions.randomElement(using: &random)!, at: Int.random(in: 0...page.count, using: &random))
            }
            let locator = HTMLReferenceLocator()
            locator.feed(page)
            let placed = HTMLLinks(references: locator.finish()).links
            let missing = locator.links.links.dropFirst(placed.count)
            if !missing.isEmpty {
                unplaced.append("\(missing.map(\.reference)) in \(String(decoding: page, as: UTF8.self).debugDescription)")
            }
        }
        #expect(unplaced.isEmpty, "\(unplaced.prefix(3))")
    }
}
