import Testing

@testable import MirrorHTML

/// Collects start tags and the URL-bearing attributes, as the reference locator reads them.
private final class TagRecorder: HTMLEventHandler {
    var tags: [String] = []
    var links: [String] = []

    func startElement(_ name: UnsafeBufferPointer<UInt8>, attributes: UnsafeBufferPointer<HTMLAttributeBytes>) {
        tags.append(name.string)
        for attribute in attributes where attribute.name.spells("href") || attribute.name.spells("src") {
            links.append(attribute.value.string)
        }
    }

    static func parse(_ html: String) -> TagRecorder {
        let recorder = TagRecorder()
        HTMLSAXParser.parse(Array(html.utf8), charset: "utf-8", handler: recorder)
        return recorder
    }
}

@Suite("libxml2 HTML parser in SAX mode")
struct LibXML2Tests {
    let page = """
        <!DOCTYPE html><html><head><title>T</title><link rel=stylesheet href="/style.css?v=2"></head>
        <body><A HREF="a.html">A</A> <img src='img/x.png' alt=x><p>text &amp; more
        <a href="https://other.example/b?x=1&amp;y=2#frag">B</a></body></html>
        """

    @Test func extractsLinksWithLowerCasedNamesAndDecodedEntities() {
        let recorder = TagRecorder.parse(page)
        #expect(recorder.links == ["/style.css?v=2", "a.html", "img/x.png", "https://other.example/b?x=1&y=2#frag"])
        #expect(recorder.tags.contains("a"))
        #expect(!recorder.tags.contains("A"))
    }

    /// Browsers go on after `</html>`, and pages put scripts and links there.
    @Test func whatFollowsTheRootEndTagIsRead() {
        let recorder = TagRecorder.parse("<html><body><a href=a>x</a></body></html><a href=b>y</a></html><img src=c>")
        #expect(recorder.links == ["a", "b", "c"])
    }

    @Test func recoversFromBrokenMarkup() {
        let broken = "<div><a href=one.html>unclosed <p><b><a href='two.html'</b><img src=three.png><table><td><a href=four.html>"
        let recorder = TagRecorder.parse(broken)
        #expect(recorder.links.contains("one.html"))
        #expect(recorder.links.contains("four.html"))
    }

    @Test func decodesTheDeclaredCharset() {
        // "café.html" in ISO-8859-1: é is the single byte 0xE9.
        let bytes: [UInt8] = Array("<a href=\"caf".utf8) + [0xE9] + Array(".html\">x</a>".utf8)
        let recorder = TagRecorder()
        HTMLSAXParser.parse(bytes, charset: "iso-8859-1", handler: recorder)
        #expect(recorder.links == ["café.html"])
    }

    /// The caller's charset (from the HTTP header) wins over a `<meta charset>` that disagrees.
    @Test func theCallersCharsetWinsOverMeta() {
        let bytes: [UInt8] = Array("<meta charset=utf-8><a href=\"caf".utf8) + [0xE9] + Array(".html\">x</a>".utf8)
        let recorder = TagRecorder()
        HTMLSAXParser.parse(bytes, charset: "iso-8859-1", handler: recorder)
        #expect(recorder.links == ["café.html"])
    }

    @Test func utf8IsTheDefault() {
        let recorder = TagRecorder()
        HTMLSAXParser.parse(Array("<html><body><a href=\"/ünï/çødé.html\">x</a>".utf8), charset: "x-unknown", handler: recorder)
        #expect(recorder.links == ["/ünï/çødé.html"])
    }

    @Test func anEmptyDocumentReportsNothing() {
        #expect(TagRecorder.parse("").tags.isEmpty)
    }
}
