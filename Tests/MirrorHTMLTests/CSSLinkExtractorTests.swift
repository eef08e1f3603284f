import MirrorHTML
import Testing

private func references(_ css: String) -> [String] {
    CSSLinkExtractor.links(in: css).map(\.reference)
}

@Suite("CSS link extraction")
struct CSSLinkExtractorTests {
    @Test(arguments: [
        ("a { background: url(a.png) }", ["a.png"]),
        ("a { background: url('a.png') }", ["a.png"]),
        ("a { background: url(\"a.png\") }", ["a.png"]),
        ("a { background: url(  a.png\t) }", ["a.png"]),
        ("a { background: url(  \"a b.png\"  ) }", ["a b.png"]),
        ("a { background: URL(a.png) }", ["a.png"]),
        ("a{background:url(a.png),url(b.png)}", ["a.png", "b.png"]),
        ("a { background: url(\"it's.png\") url('say \"hi\".png') }", ["it's.png", "say \"hi\".png"]),
        ("a { background: url(a\\).png) }", ["a).png"]),
        ("a { background: url(a\\ b.png) }", ["a b.png"]),
        ("a { background: url('a\\'b.png') }", ["a'b.png"]),
        ("a { background: url(\\61 .png) }", ["a.png"]),
        ("a { background: url(\\0000E9t\\E9 .png) }", ["été.png"]),
        ("a { background: url('long\\\nname.png') }", ["longname.png"]),
        ("a { background: url(ü.png) }", ["ü.png"]),
        ("a { background: url(x.png?a=1&b=2#frag) }", ["x.png?a=1&b=2#frag"]),
    ])
    func urlForms(css: String, expected: [String]) {
        #expect(references(css) == expected)
    }

    @Test(arguments: [
        ("@import \"a.css\";", ["a.css"]),
        ("@import 'a.css' screen;", ["a.css"]),
        ("@import url(a.css);", ["a.css"]),
        ("@import url(\"a.css\") print;", ["a.css"]),
        ("@IMPORT   /* why */  \"a.css\";", ["a.css"]),
        ("@import\"a.css\";@import url(b.css)", ["a.css", "b.css"]),
        ("@import url(a.css) layer(base) supports(display: grid);", ["a.css"]),
    ])
    func importForms(css: String, expected: [String]) {
        #expect(references(css) == expected)
        #expect(CSSLinkExtractor.links(in: css).allSatisfy { $0.source == "css @import" && $0.kind == .requisite })
    }

    @Test func urlSourceAndKind() {
        #expect(CSSLinkExtractor.links(in: "a{b:url(x)}") == [ExtractedLink(reference: "x", kind: .requisite, source: "css url()")])
    }

    @Test(arguments: [
        "/* url(a.png) */",
        "/* @import 'a.css'; */",
        "a::before { content: \"url(a.png)\" }",
        "a::before { content: 'x' } b { font-family: \"a.css\" }",
        "a { background: myurl(a.png) }",
        "a { background: url(data:image/png;base64,AAAA) }",
        "a { background: url('DATA:image/svg+xml;utf8,<svg></svg>') }",
        "a { filter: url(#shadow) }",
        "a { background: url() } b { background: url('') }",
        "a { background: url(a b.png) }",
        "a { background: url(a\"b.png) }",
        "a { background: url(a(b).png) }",
        "/* unterminated url(a.png)",
    ])
    func notLinks(css: String) {
        #expect(references(css).isEmpty, "\(references(css))")
    }

    @Test func badURLIsSkippedAndScanningContinues() {
        #expect(references("a { background: url(a b.png) } b { background: url(c.png) }") == ["c.png"])
        // A string broken by a newline ends there; what follows is tokenized again.
        #expect(references("a { content: \"broken\n} b { background: url(c.png) }") == ["c.png"])
        #expect(references("a { content: \"broken url(a.png)\n url(b.png) }") == ["b.png"])
    }

    @Test func commentsBetweenURLs() {
        // Inside an unquoted url(), "/*" is part of the URL, as in a browser.
        #expect(references("a{b:url(a.png)/*url(x.png)*/;c:url(/*x*/b.png)}") == ["a.png", "/*x*/b.png"])
    }

    @Test func imageSetStrings() {
        let css = "a { background-image: image-set(\"a.png\" 1x, url(b.png) 2x); b: -webkit-image-set('c.png' 1x); c: 'd.png' }"
        #expect(references(css) == ["a.png", "b.png", "c.png"])
    }

    @Test func fontFaceSources() {
        let css = """
            @font-face { font-family: X; src: url(x.eot?#iefix) format("embedded-opentype"),
              url("x.woff2") format("woff2"), local("X Sans"); }
            """
        #expect(references(css) == ["x.eot?#iefix", "x.woff2"])
    }

    @Test func unterminatedURLAtEndOfInput() {
        #expect(references("a { background: url(a.png") == ["a.png"])
    }

    /// Found by the `css-links` fuzz target: escapes were decoded over bytes, so a byte that is no
    /// UTF-8 (D9) and an escaped one after it (`\` and 9E) made a character (U+065E) that the style
    /// sheet, decoded first as CSS reads it, does not have: each reads as U+FFFD.
    @Test func anEscapedByteDoesNotJoinTheBytesAroundIt() {
        let css: [UInt8] = Array("a{b:url(".utf8) + [0xD9, UInt8(ascii: "\\"), 0x9E] + Array(".png)}".utf8)
        let found = css.withUnsafeBufferPointer(CSSLinkExtractor.references(in:))
        #expect(found.map(\.value) == ["\u{FFFD}\u{FFFD}.png"])
        #expect(found.map(\.range) == [8..<15])
    }
}
