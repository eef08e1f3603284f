import Testing

@testable import MirrorCrawl

/// The replay layer's script as it goes into a page: before the page's first script, after its
/// `<meta charset>`, in ASCII with no `<` of the data's, the same for `/` and `/index.html`.
@Suite("The replay layer put in a page")
struct ReplayLayerTests {
    let layer = ReplayLayer(
        pageURL: "http://example.org/docs/index.html?x=1#top",
        responses: [
            .init(url: "http://example.org/docs/data.json", contentType: "application/json", body: Array("{\"a\": \"</script>\"}".utf8)),
            .init(url: "http://example.org/docs/é.txt", contentType: "text/plain", body: [0, 255, 60]),
        ])

    @Test func itGoesBeforeThePagesFirstScript() {
        let page = Array("<!DOCTYPE html><html><HEAD><meta charset=\"utf-8\"><SCRIPT src=app.js></SCRIPT></head></html>".utf8)
        let injected = String(decoding: layer.inject(into: page), as: UTF8.self)
        let layerAt = injected.range(of: "<script data-mirror-replay>")!.lowerBound
        #expect(injected.range(of: "<meta charset")!.lowerBound < layerAt)
        #expect(layerAt < injected.range(of: "<SCRIPT src=app.js>")!.lowerBound)
        // Without a script: before </head>; without a head: at the start.
        let noScript = String(decoding: layer.inject(into: Array("<html><head><title>t</title></head><body>b</body>".utf8)), as: UTF8.self)
        #expect(noScript.hasPrefix("<html><head><title>t</title><script data-mirror-replay>"))
        let bare = String(decoding: layer.inject(into: Array("just text".utf8)), as: UTF8.self)
        #expect(bare.hasPrefix("<script data-mirror-replay>") && bare.hasSuffix("</script>just text"))
    }

    @Test func itsSourceIsASCIIAndCannotEndItsScriptEarly() {
        let source = layer.source
        #expect(source.utf8.allSatisfy { $0 < 0x80 })
        // The only "</script" of the page is the one that closes the layer.
        #expect(!source.contains("</script"))
        // The page's base: its directory, with neither query nor fragment.
        #expect(source.contains("(\"http://example.org/docs/\", location.href"))
        #expect(source.contains("\"http://example.org/docs/\\u00e9.txt\""))
    }

    @Test func slashAndIndexHTMLGetTheSameLayer() {
        let slash = ReplayLayer(pageURL: "http://example.org/docs/", responses: layer.responses)
        let index = ReplayLayer(pageURL: "http://example.org/docs/index.html", responses: layer.responses)
        #expect(slash.source == index.source)
    }
}
