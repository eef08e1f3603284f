import MirrorSite
import Testing

@Suite("Link rewriting, golden documents")
struct LinkRewriterGoldenTests {
    let rewriter = LinkRewriter()
    /// What the fake crawl saved: normalized URL → file.
    static let saved: [String: String] = [
        "http://h/index.html": "h/index.html",
        "http://h/docs/guide.html": "h/docs/guide.html",
        "http://h/docs/": "h/docs/index.html",
        "http://h/page.html?id=3&lang=en": "h/page@id=3&lang=en.html",
        "http://h/img/a,1.png": "h/img/a,1.png",
        "http://h/img/b.png": "h/img/b.png",
        "http://h/img/caf%C3%A9.png": "h/img/café.png",
        "http://h/img/with%20space.png": "h/img/with space.png",
        "http://h/img/100%25.png": "h/img/100%25.png",
        "http://h/css/theme.css?v=2022.1": "h/css/theme@v=2022.1.css",
        "http://h/css/print.css": "h/css/print.css",
        "http://h/css/imported.css": "h/css/imported.css",
        "http://h/img/bg.png": "h/img/bg.png",
        "http://h/new.html": "h/new.html",
        "http://h/blog/post.html": "h/blog/post.html",
    ]

    private func html(_ source: String, path: String = "h/docs/page.html", url: String = "http://h/docs/page.html") -> String {
        let output = rewriter.rewriteHTML(Array(source.utf8), charset: "utf-8", pageURL: url, pagePath: path) { Self.saved[$0] }
        return String(decoding: output, as: UTF8.self)
    }

    private func css(_ source: String) -> String {
        let output = rewriter.rewriteCSS(
            Array(source.utf8), fileURL: "http://h/css/theme.css?v=2022.1", filePath: "h/css/theme@v=2022.1.css"
        ) {
            Self.saved[$0]
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// `é` written precomposed and decomposed are equal Strings but two URLs: each link keeps its own.
    @Test func canonicallyEquivalentSpellingsStayApart() {
        let saved = ["http://h/caf%C3%A9.html": "h/one.html", "http://h/cafe%CC%81.html": "h/two.html"]
        let source = "<a href=\"caf\u{E9}.html#a\">1</a><a href=\"cafe\u{301}.html#b\">2</a>"
        let output = rewriter.rewriteHTML(Array(source.utf8), charset: "utf-8", pageURL: "http://h/index.html", pagePath: "h/index.html") {
            saved[$0]
        }
        #expect(String(decoding: output, as: UTF8.self) == "<a href=\"one.html#a\">1</a><a href=\"two.html#b\">2</a>")
    }

    @Test func noLinksGivesIdenticalBytes() {
        let source = "<!DOCTYPE html>\r\n<HTML><p class=x>caf\u{E9} &amp; <b>bold</i>\n<!-- <a href=x> --></HTML>\n\u{0}trailing"
        #expect(html(source) == source)
        let unfetchable =
            ##"<a href="mailto:a@b">m</a><a href='javascript:void(0)'>j</a><img src="data:image/gif;base64,R0l="><a href="#top">t</a>"##
        #expect(html(unfetchable) == unfetchable)
        #expect(
            css("p { filter: url(#f); background: url(data:image/png;base64,AA==) }")
                == "p { filter: url(#f); background: url(data:image/png;base64,AA==) }")
    }

    @Test func malformedHTMLKeepsEveryOtherByte() {
        let source = "<p><a href=../index.html>x<div></p></a><td><img src=\"../img/b.png\"<b>\n<a href='guide.html'"
        let expected = "<p><a href=../index.html>x<div></p></a><td><img src=\"../img/b.png\"<b>\n<a href='guide.html'"
        #expect(html(source) == expected)
        let broken = "<a href=x.html>one</a><a href=\"new.html\">two</a></div></html></html><img src=../img/b.png>"
        #expect(
            html(broken, path: "h/index.html", url: "http://h/index.html")
                == "<a href=http://h/x.html>one</a><a href=\"new.html\">two</a></div></html></html><img src=img/b.png>")
    }

    @Test func latin1PageWithNonASCIILink() {
        func latin1(_ text: String) -> [UInt8] { text.unicodeScalars.map { UInt8($0.value) } }
        let source = latin1("<p>caf\u{E9}</p><img src=\"../img/caf\u{E9}.png\" alt=\"\u{E9}\">")
        let output = rewriter.rewriteHTML(source, charset: "iso-8859-1", pageURL: "http://h/docs/page.html", pagePath: "h/docs/page.html") {
            Self.saved[$0]
        }
        #expect(output == latin1("<p>caf\u{E9}</p><img src=\"../img/caf%C3%A9.png\" alt=\"\u{E9}\">"))
    }

    @Test func srcsetWithCommasInsideURLs() {
        #expect(
            html(##"<img srcset="../img/a,1.png 1x,  ../img/b.png 2x" src=../img/b.png>"##)
                == ##"<img srcset="../img/a%2C1.png 1x,  ../img/b.png 2x" src=../img/b.png>"##)
        #expect(
            html(##"<img srcset="/img/a,1.png 1x,/img/b.png 2x, /img/gone.png 3x">"##)
                == ##"<img srcset="../img/a%2C1.png 1x,../img/b.png 2x, http://h/img/gone.png 3x">"##)
    }

    @Test func cssImportChainsAndQuotingStyles() {
        let source = """
            @import url("print.css");
            @import 'imported.css' print;
            @import "/css/imported.css";
            body { background: url( ../img/bg.png ) repeat-x; }
            h1 { background: url('/img/with space.png'), url(/img/missing.png); }
            /* url(/img/bg.png) in a comment */
            """
        let expected = """
            @import url("print.css");
            @import 'imported.css' print;
            @import "imported.css";
            body { background: url( ../img/bg.png ) repeat-x; }
            h1 { background: url('../img/with%20space.png'), url(http://h/img/missing.png); }
            /* url(/img/bg.png) in a comment */
            """
        #expect(css(source) == expected)
    }

    @Test func baseHrefIsAccountedForAndNeutralised() {
        let source =
            ##"<head><base href="/img/" target=_top></head><img src="b.png"><a href="#s">s</a><a href="../docs/guide.html#x">g</a>"##
        #expect(
            html(source)
                == ##"<head><base href="page.html" target=_top></head><img src="../img/b.png"><a href="#s">s</a><a href="guide.html#x">g</a>"##
        )
    }

    @Test func fragmentsAndQueries() {
        let source =
            ##"<a href="/page.html?id=3&amp;lang=en#top">q</a><a href="guide.html#install">f</a><a href="/page.html?id=4&amp;x=1#a%20b">n</a><a href="page.html#me">self</a>"##
        let expected =
            ##"<a href="../page@id=3%26lang=en.html#top">q</a><a href="guide.html#install">f</a><a href="http://h/page.html?id=4&amp;x=1#a%20b">n</a><a href="http://h/docs/page.html#me">self</a>"##
        #expect(html(source) == expected)
        // The page itself, when saved, is its own file name.
        #expect(
            html(##"<a href="#top">t</a><a href=index.html#x>i</a>"##, path: "h/index.html", url: "http://h/index.html")
                == ##"<a href="#top">t</a><a href=index.html#x>i</a>"##)
    }

    @Test func namesThatNeedEscaping() {
        #expect(
            html(##"<img src="/img/100%25.png"><img src='/img/with%20space.png'><img src=/img/caf%C3%A9.png>"##)
                == ##"<img src="../img/100%2525.png"><img src='../img/with%20space.png'><img src=../img/caf%C3%A9.png>"##)
    }

    @Test func unquotedAttributesAndGreaterThanInsideQuotes() {
        #expect(
            html(##"<a title="a > b" href=/new.html>x</a><img alt='>' src=/img/b.png >"##)
                == ##"<a title="a > b" href=../new.html>x</a><img alt='>' src=../img/b.png >"##)
    }

    @Test func duplicateAttributesOnlyTheFirstCounts() {
        #expect(html(##"<a href="/new.html" HREF="/index.html">x</a>"##) == ##"<a href="../new.html" HREF="/index.html">x</a>"##)
    }

    @Test func metaRefreshKeepsItsDelay() {
        #expect(
            html(##"<meta http-equiv="Refresh" content="5;  URL='guide.html#top'">"##)
                == ##"<meta http-equiv="Refresh" content="5;  URL='guide.html#top'">"##)
        #expect(
            html(##"<meta http-equiv="refresh" content="0; url=/new.html">"##)
                == ##"<meta http-equiv="refresh" content="0; url=../new.html">"##)
    }

    @Test func styleAttributesAndStyleBlocks() {
        let source = """
            <style>
              .a { background: url("/img/bg.png") }
              @import '/css/print.css';
            </style>
            <div style="background: url('/img/b.png') no-repeat; border-image: url(/img/gone.png)">x</div>
            <style>p { background: url(/blog/x?a=1&b=2) }</style>
            """
        let expected = """
            <style>
              .a { background: url("../img/bg.png") }
              @import '../css/print.css';
            </style>
            <div style="background: url('../img/b.png') no-repeat; border-image: url(http://h/img/gone.png)">x</div>
            <style>p { background: url(http://h/blog/x?a=1&b=2) }</style>
            """
        #expect(html(source) == expected)
    }

    @Test func linkToSomethingNotSavedBecomesAbsolute() {
        #expect(
            html(##"<a href="../missing.html?x=%7e#frag">m</a><a href="https://other.example/p">o</a>"##)
                == ##"<a href="http://h/missing.html?x=~#frag">m</a><a href="https://other.example/p">o</a>"##)
    }

    /// Malformed pages: every link libxml2 reads is rewritten, and only its bytes change (NUL
    /// bytes, junk, open titles and tags stay as they were).
    @Test func malformedPagesGetEveryLinkRewritten() {
        // An open title or textarea: libxml2 reads the links inside (a browser reads text).
        #expect(
            html("<title>t <a href=/new.html>n</a><img src=\"/img/b.png\">")
                == "<title>t <a href=../new.html>n</a><img src=\"../img/b.png\">")
        #expect(html("<textarea><a href='/new.html'>") == "<textarea><a href='../new.html'>")
        // A NUL ends a value for libxml2 (and its reading of the page): it stays after the new value.
        #expect(html("<p>a\u{0}b</p><a href=\"/new.html\u{0}x.html\">") == "<p>a\u{0}b</p><a href=\"../new.html\u{0}x.html\">")
        // A reference libxml2 reads as U+0000 ends the value too.
        #expect(html(#"<a href="/new.html&#;x">n</a>"#) == #"<a href="../new.html">n</a>"#)
        // Comments ended by `--!>`, tags left open, glued, or named as libxml2 names them.
        #expect(html("<!-- c --!><a href=/new.html>") == "<!-- c --!><a href=../new.html>")
        #expect(
            html(#"<a href="/new.html" <img src="/img/b.png">x</a><a' href=/index.html>"#)
                == #"<a href="../new.html" <img src="/img/b.png">x</a><a' href=../index.html>"#)
        #expect(html("<hea<script>d><a href=/new.html>") == "<hea<script>d><a href=../new.html>")
        // Bytes that are not UTF-8 around and inside a link.
        let junk = Array("<p>".utf8) + [0xFF, 0xC3] + Array("</p><a".utf8) + [0xF0, 0x28] + Array(" href=/new.html>".utf8)
        let rewritten = rewriter.rewriteHTML(junk, charset: "utf-8", pageURL: "http://h/docs/page.html", pagePath: "h/docs/page.html") {
            Self.saved[$0]
        }
        #expect(rewritten == Array("<p>".utf8) + [0xFF, 0xC3] + Array("</p><a".utf8) + [0xF0, 0x28] + Array(" href=../new.html>".utf8))
    }

    @Test func redirectedURLUsesWhatTargetReturns() {
        let redirects = ["http://h/old.html": "http://h/new.html"]
        let output = rewriter.rewriteHTML(
            Array(##"<a href="/old.html#top">o</a>"##.utf8), charset: "utf-8", pageURL: "http://h/blog/post.html",
            pagePath: "h/blog/post.html"
        ) {
            Self.saved[redirects[$0] ?? $0]
        }
        #expect(String(decoding: output, as: UTF8.self) == ##"<a href="../new.html#top">o</a>"##)
    }
}
