import MirrorHTML
import Testing

@Suite("The text of a page, for the search index")
struct HTMLTextTests {
    @Test func titleHeadingsAndBodyWithoutScriptsStylesOrNavigation() {
        let page = """
            <!DOCTYPE html><html><head><title>The  os module</title><style>body { color: red }</style>
            <script>var hidden = "script words";</script></head>
            <body><nav><a href="/">Home</a> navigation words</nav>
            <div role="navigation">role words</div><div class="sphinxsidebar">sidebar words</div>
            <div id="nav-tree">tree words</div><header><h1>os &mdash; Miscellaneous interfaces</h1></header>
            <p>Walk<b>ing</b> the tree with <code>os.walk()</code>, caf&eacute; na&iuml;ve.</p>
            <h2>Files and <em>directories</em></h2><p hidden>hidden words</p><aside>aside words</aside>
            <p>Last words.<footer>footer words</footer></body></html>
            """
        let text = HTMLText.extract(from: Array(page.utf8), contentType: "text/html; charset=utf-8")
        #expect(text.title == "The os module")
        #expect(text.headings == ["os — Miscellaneous interfaces", "Files and directories"])
        #expect(text.body == "Walking the tree with os.walk(), café naïve. Last words.", "\(text.body)")
        // What the page defines: ids, and names of anchors; not those of navigation.
        #expect(text.names == "", "\(text.names)")
        let reference = HTMLText.extract(
            from: Array(
                """
                <body><nav id="top-nav"><a name="home"></a></nav><dl><dt id="os.walk">os.walk(top)</dt></dl>
                <p><a class="anchor" name="cfg_extract_all"></a>EXTRACT_ALL</p></body>
                """.utf8), contentType: nil)
        #expect(reference.names == "os.walk cfg_extract_all", "\(reference.names)")
        for word in ["script", "color", "navigation", "role", "sidebar", "tree words", "hidden", "aside", "footer", "Home"] {
            #expect(!text.body.contains(word) && !text.headings.joined().contains(word), "\(word) was indexed")
        }
    }

    @Test func aLatin1PageIsDecoded() {
        let page: [UInt8] =
            Array("<html><head><title>Caf".utf8) + [0xE9] + Array("</title></head><body><p>".utf8) + [0xC0]
            + Array(" la carte</p></body></html>".utf8)
        let text = HTMLText.extract(from: page, contentType: "text/html; charset=iso-8859-1")
        #expect(text.title == "Café")
        #expect(text.body == "À la carte")
    }

    @Test func unclosedAndMalformedMarkupStillGivesItsText() {
        let page = "<title>Broken<body><h1>Head<p>one <b>two <i>three</p><div class='menu'>menu words<p>four"
        let text = HTMLText.extract(from: Array(page.utf8), contentType: nil)
        #expect(text.title == "Broken")
        #expect(text.headings.first?.hasPrefix("Head") == true)
        #expect(!text.body.contains("menu words") && !text.headings.joined().contains("menu words"), "\(text)")
    }

    /// Found by the `html-text` fuzz target: the space due before the word that reached the
    /// limit made the body a byte longer than it, and a limit inside a character left half of it
    /// (read as U+FFFD). The body is now cut before the first character that does not fit.
    @Test func theBodyKeepsToItsLimitWithoutBreakingACharacter() {
        let words = Array(("<p>" + String(repeating: "a", count: 62) + "</p><p>bc</p>").utf8)
        #expect(HTMLText.extract(from: words, contentType: nil, limit: 64).body == String(repeating: "a", count: 62) + " b")
        #expect(HTMLText.extract(from: words, contentType: nil, limit: 63).body == String(repeating: "a", count: 62))
        let character = "<p>" + String(repeating: "a", count: 62) + "\u{E9}x</p>"
        let whole = HTMLText.extract(from: Array(character.utf8), contentType: nil, limit: 64)
        #expect(whole.body == String(repeating: "a", count: 62) + "\u{E9}")
        let half = HTMLText.extract(from: Array(character.utf8), contentType: nil, limit: 63)
        #expect(half.body == String(repeating: "a", count: 62))
        // Nothing is taken once the body is cut (not the `c` that would fit where the `é` did not),
        // so it stays the start of the page's text.
        let later = HTMLText.extract(
            from: Array(("<p>" + String(repeating: "a", count: 62) + "\u{E9}<b>c</b></p>").utf8), contentType: nil, limit: 63)
        #expect(later.body == String(repeating: "a", count: 62))
    }
}
