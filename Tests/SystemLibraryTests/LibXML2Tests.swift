import MirrorHTML
import Testing

/// Collects start tags and the URL-bearing attributes, the way the link extractor will.
private final class TagRecorder: HTMLSAXParser.Delegate {
    var tags: [String] = []
    var links: [String] = []
    var text = ""

    func parser(_ parser: HTMLSAXParser, didStart element: String, attributes: [HTMLAttribute]) {
        tags.append(element)
        for name in ["href", "src"] { if let value = attributes[name] { links.append(value) } }
    }
    func parser(_ parser: HTMLSAXParser, didEnd element: String) {}
    func parser(_ parser: HTMLSAXParser, foundText text: String) { self.text += text }
}

@Suite("libxml2 HTML parser in SAX mode")
struct LibXML2Tests {
    let page = """
        <!DOCTYPE html><html><head><title>T</title><link rel=stylesheet href="/style.css?v=2"></head>
        <body><A HREF="a.html">A</A> <img src='img/x.png' alt=x><p>text &amp; more
        <a href="https://other.example/b?x=1&amp;y=2#frag">B</a></body></html>
        """

    @Test func extractsLinksWithLowerCasedNamesAndDecodedEntities() {
        let recorder = TagRecorder()
        HTMLSAXParser.parse(Array(page.utf8), delegate: recorder)
        #expect(recorder.links == ["/style.css?v=2", "a.html", "img/x.png", "https://other.example/b?x=1&y=2#frag"])
        #expect(recorder.tags.contains("a"))
        #expect(!recorder.tags.contains("A"))
        #expect(recorder.text.contains("text & more"))
    }

    @Test func feedingOneByteAtATimeGivesTheSameLinks() {
        let whole = TagRecorder()
        HTMLSAXParser.parse(Array(page.utf8), delegate: whole)
        let piecewise = TagRecorder()
        let parser = HTMLSAXParser(delegate: piecewise)
        for byte in page.utf8 { parser.feed([byte]) }
        parser.finish()
        #expect(piecewise.links == whole.links)
    }

    @Test func recoversFromBrokenMarkup() {
        let recorder = TagRecorder()
        let broken = "<div><a href=one.html>unclosed <p><b><a href='two.html'</b><img src=three.png><table><td><a href=four.html>"
        HTMLSAXParser.parse(Array(broken.utf8), delegate: recorder)
        #expect(recorder.links.contains("one.html"))
        #expect(recorder.links.contains("four.html"))
    }

    @Test func decodesTheDeclaredCharset() {
        // "café.html" in ISO-8859-1: é is the single byte 0xE9.
        let bytes: [UInt8] = Array("<a href=\"caf".utf8) + [0xE9] + Array(".html\">x</a>".utf8)
        let recorder = TagRecorder()
        HTMLSAXParser.parse(bytes, charset: "iso-8859-1", delegate: recorder)
        #expect(recorder.links == ["café.html"])
    }

    @Test func utf8IsTheDefault() {
        let recorder = TagRecorder()
        HTMLSAXParser.parse(Array("<html><body><a href=\"/ünï/çødé.html\">x</a>".utf8), delegate: recorder)
        #expect(recorder.links == ["/ünï/çødé.html"])
    }
}
