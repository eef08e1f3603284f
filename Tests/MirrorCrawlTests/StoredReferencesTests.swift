@testable import MirrorCrawl
import MirrorHTML
import Testing

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
        #expect(StoredReferences.decode([]) == [])
    }

    @Test func damagedBytesAreRefused() {
        let encoded = StoredReferences.encode(HTMLReferenceLocator.references(in: Array(html.utf8)))
        // Every cut inside a record, an unknown flag, a varint that never ends.
        var refused = 0
        for cut in 1..<encoded.count where StoredReferences.decode(Array(encoded.prefix(cut))) == nil { refused += 1 }
        #expect(refused > encoded.count / 2)
        #expect(StoredReferences.decode([9, 0, 0, 0]) == nil)
        #expect(StoredReferences.decode([0] + [UInt8](repeating: 0xFF, count: 12)) == nil)
    }
}
