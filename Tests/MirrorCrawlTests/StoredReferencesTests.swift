import Foundation
import MirrorCrawlTesting
import MirrorHTML
import MirrorSite
import MirrorTestSupport
import Testing

@testable import MirrorCrawl

@Suite("References kept in the journal")
struct StoredReferencesTests {
    let html = """
        <html><head><base href="/docs/"><style>p { background: url("ünï.png") }</style></head>
        <body><a href="a.html?x=1&amp;y=2">a</a><img srcset="b,1.png 1x, c.png 2x"><div style="background:url(d.png)">
        <a href="\(String(repeating: "long/", count: 40)).html">l</a></body></html>
        """

    @Test func roundTrip() throws {
        let references = HTMLReferenceLocator.references(in: Array(html.utf8))
        #expect(references.count == 7)
        let decoded = try #require(StoredReferences.decode(StoredReferences.encode(references)))
        // Kind and source are not kept; what rewriting reads is.
        #expect(decoded.map(\.range) == references.map(\.range))
        #expect(decoded.map(\.value) == references.map(\.value))
        #expect(decoded.map(\.role) == references.map(\.role))
        #expect(decoded.map(\.inAttribute) == references.map(\.inAttribute))
        #expect(StoredReferences.decode(StoredReferences.encode([])) == [])
    }

    @Test func damagedBytesAreRefused() {
        let encoded = StoredReferences.encode(HTMLReferenceLocator.references(in: Array(html.utf8)))
        for cut in 0..<encoded.count { #expect(StoredReferences.decode(Array(encoded.prefix(cut))) == nil, "cut at \(cut)") }
        #expect(StoredReferences.decode(encoded + [0]) == nil)
        #expect(StoredReferences.decode([1, 9, 0, 0, 0]) == nil)  // an unknown flag
        #expect(StoredReferences.decode([1, 0] + [UInt8](repeating: 0xFF, count: 12)) == nil)  // a varint that never ends
    }

    /// What the crawl keeps is found again under the key the folder's rewriting and search index
    /// ask with, so finishing a crawl parses no page a second time.
    @Test func theFinishFindsWhatTheCrawlKept() async throws {
        try await TestOrigin.with(site: .named("links")) { origin in
            try await CrawlHarness.with { harness in
                _ = try await harness.crawl([origin.url("/")])
                let folder = harness.root + "/out"
                let journal = try CrawlJournal(folder: folder, fresh: false)
                let pages = try harness.manifest().resources.filter { $0.value.contentType?.hasPrefix("text/html") == true }
                #expect(pages.count > 5)
                // Asked for all at once, out of order, with a page the journal does not have and
                // one under another key.
                let asked = pages.map { url, resource in
                    (url, LinkReader.pageKey(digest: resource.sha256, contentType: resource.contentType, ignoredParameters: []))
                }
                let extra = [(origin.url("/absent.html"), "key"), (asked[0].0, "another key")]
                let found = try journal.pages.references(of: asked + extra)
                let texts = try journal.pages.texts(of: asked + extra)
                #expect(found.count == pages.count + 2 && found.suffix(2).allSatisfy { $0 == nil })
                #expect(texts.count == pages.count + 2 && texts.suffix(2).allSatisfy { $0 == nil })
                for (((url, resource), references), text) in zip(zip(pages, found), texts) {
                    let kept = try #require(references, "\(url)")
                    let original = folder + "/" + SiteManifest.originalPath(sha256: resource.sha256)
                    let bytes = try Data(
                        contentsOf: URL(
                            fileURLWithPath: FileManager.default.fileExists(atPath: original) ? original : folder + "/" + resource.path))
                    #expect(kept.map(\.range) == HTMLReferenceLocator.references(in: Array(bytes)).map(\.range), "\(url)")
                    #expect(text == HTMLText.extract(from: Array(bytes), contentType: resource.contentType), "\(url)")
                }
            }
        }
    }
}
