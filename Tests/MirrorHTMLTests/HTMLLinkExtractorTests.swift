import Foundation
import MirrorHTML
import Testing

/// The references, kinds and sources found in an HTML snippet.
private func extract(_ html: String, charset: String = "utf-8") -> [ExtractedLink] {
    HTMLLinkExtractor.links(in: Array(html.utf8), charset: charset).links
}

private func references(_ html: String) -> [String] {
    extract(html).map(\.reference)
}

@Suite("HTML link extraction")
struct HTMLLinkExtractorTests {
    /// UTF-16 pages (byte order mark, or the HTTP charset alone) are read from their UTF-8
    /// transcoding: their links are found, non-ASCII ones included.
    @Test(arguments: [(true, "utf-16le"), (false, "utf-16le"), (true, "utf-16be"), (false, "utf-16be")])
    func utf16Pages(byteOrderMark: Bool, encoding: String) {
        let html = #"<html><body><a href="caf\#u{E9}.html">x</a><img srcset="a.png 1x, b.png 2x"><style>p{background:url(c.png)}</style>"#
        let littleEndian = encoding == "utf-16le"
        var bytes: [UInt8] = byteOrderMark ? (littleEndian ? [0xFF, 0xFE] : [0xFE, 0xFF]) : []
        for unit in html.utf16 {
            bytes += littleEndian ? [UInt8(unit & 0xFF), UInt8(unit >> 8)] : [UInt8(unit >> 8), UInt8(unit & 0xFF)]
        }
        let charset = CharsetSniffer.charset(contentType: byteOrderMark ? nil : "text/html; charset=\(encoding)", prefix: bytes)
        #expect(charset == encoding)
        #expect(HTMLLinkExtractor.links(in: bytes, charset: charset).links.map(\.reference) == ["café.html", "a.png", "b.png", "c.png"])
    }

    @Test func anchorsAndAreasAreNavigation() {
        #expect(
            extract(#"<a href="a.html">x</a><map><area href=" b.html "></map>"#) == [
                ExtractedLink(reference: "a.html", kind: .navigation, source: "a[href]"),
                ExtractedLink(reference: "b.html", kind: .navigation, source: "area[href]"),
            ])
    }

    @Test(arguments: [
        ("stylesheet", LinkKind?.some(.requisite)), ("icon", .requisite), ("shortcut icon", .requisite),
        ("apple-touch-icon", .requisite), ("preload", .requisite), ("modulepreload", .requisite),
        ("prefetch", .requisite), ("manifest", .requisite), ("mask-icon", .requisite),
        ("alternate stylesheet", .requisite), ("next", .navigation), ("prev", .navigation),
        ("canonical", nil), ("alternate", nil), ("search", nil), ("pingback", nil), ("dns-prefetch", nil),
        ("preconnect", nil), ("edit", nil), ("shortlink", nil), ("unknown-thing", nil),
    ])
    func linkRelations(rel: String, kind: LinkKind?) {
        let links = extract(#"<head><link rel="\#(rel)" href="x"></head>"#)
        #expect(links == (kind.map { [ExtractedLink(reference: "x", kind: $0, source: "link[href]")] } ?? []))
    }

    /// `rel` is cut at ASCII white space by bytes, as browsers cut it: a mark after the space
    /// made one `Character` with it, and `stylesheet` was not seen, so the offline copy loaded
    /// the live stylesheet.
    @Test func aMarkAfterASpaceHidesNoRelation() {
        #expect(extract(#"<link rel="stylesheet &#x301;" href="a.css">"#).map(\.kind) == [.requisite])
        #expect(extract(#"<link rel="x &#x301;icon stylesheet" href="a.css">"#).map(\.kind) == [.requisite])
    }

    @Test func linkRelationIsCaseInsensitive() {
        #expect(extract(#"<link REL="StyleSheet" HREF="a.css">"#).map(\.kind) == [.requisite])
    }

    @Test func preloadImageSrcset() {
        #expect(
            references(#"<link rel=preload as=image href=a.png imagesrcset="a.png 1x, b.png 2x">"#)
                == ["a.png", "a.png", "b.png"])
    }

    @Test func requisiteAttributes() {
        let html = """
            <body background="bg.png"><table background="t.png"><tr><td background="td.png">x</td></tr></table>
            <img src="i.png"><script src="s.js"></script><iframe src="f.html"></iframe><frameset><frame src="fr.html"></frameset>
            <object data="o.swf"></object><embed src="e.swf"><video poster="p.png" src="v.mp4"><track src="t.vtt"></video>
            <audio src="a.mp3"><source src="a.ogg"></audio><input type="IMAGE" src="btn.png"><input type="text" src="no.png">
            <p data-src="lazy.png">lazy</p>
            """
        let links = extract(html)
        #expect(
            links.map(\.reference) == [
                "bg.png", "t.png", "td.png", "i.png", "s.js", "f.html", "fr.html", "o.swf", "e.swf", "p.png", "v.mp4",
                "t.vtt", "a.mp3", "a.ogg", "btn.png", "lazy.png",
            ])
        #expect(links.allSatisfy { $0.kind == .requisite })
        #expect(
            links.map(\.source) == [
                "body[background]", "table[background]", "td[background]", "img[src]", "script[src]", "iframe[src]",
                "frame[src]", "object[data]", "embed[src]", "video[poster]", "video[src]", "track[src]", "audio[src]",
                "source[src]", "input[src]", "p[data-src]",
            ])
    }

    @Test func srcOnOtherElementsIsIgnored() {
        #expect(references(#"<div src="x.png" href="y.html"></div><span poster="p.png" data="d"></span>"#).isEmpty)
    }

    @Test func svgImageAndUse() {
        let html = """
            <svg><image href="i.svg"/><image xlink:href="x.svg"/><use href="s.svg#a"/><use xlink:href="s.svg#b"/>\
            <a xlink:href="page.html">p</a></svg>
            """
        #expect(
            extract(html) == [
                ExtractedLink(reference: "i.svg", kind: .requisite, source: "image[href]"),
                ExtractedLink(reference: "x.svg", kind: .requisite, source: "image[xlink:href]"),
                ExtractedLink(reference: "s.svg#a", kind: .requisite, source: "use[href]"),
                ExtractedLink(reference: "s.svg#b", kind: .requisite, source: "use[xlink:href]"),
                ExtractedLink(reference: "page.html", kind: .navigation, source: "a[xlink:href]"),
            ])
    }

    @Test func srcsetAndDataSrcset() {
        let html = #"<img srcset="a.png 1x, b.png 2x"><source srcset="c.png 400w"><div data-srcset="d.png, e.png 2x">"#
        #expect(
            extract(html) == [
                ExtractedLink(reference: "a.png", kind: .requisite, source: "img[srcset]"),
                ExtractedLink(reference: "b.png", kind: .requisite, source: "img[srcset]"),
                ExtractedLink(reference: "c.png", kind: .requisite, source: "source[srcset]"),
                ExtractedLink(reference: "d.png", kind: .requisite, source: "div[data-srcset]"),
                ExtractedLink(reference: "e.png", kind: .requisite, source: "div[data-srcset]"),
            ])
    }

    @Test(arguments: [
        ("img/a,1.png 1x, img/b.png 2x", ["img/a,1.png", "img/b.png"]),
        ("a.png,b.png", ["a.png,b.png"]),
        ("a.png, b.png", ["a.png", "b.png"]),
        ("  a.png   1x  ,\n\t b.png\t2x ,  ", ["a.png", "b.png"]),
        ("a.png 1x,b.png 2x", ["a.png", "b.png"]),
        ("a.png,, b.png,,,", ["a.png", "b.png"]),
        (",,, a.png", ["a.png"]),
        ("a.png 100w 50h, b.png (junk, more) 2x, c.png", ["a.png", "b.png", "c.png"]),
        ("https://cdn.example/i.png?w=1,2 2x", ["https://cdn.example/i.png?w=1,2"]),
        ("", []),
        (" , ", []),
    ])
    func srcsetEdgeCases(srcset: String, expected: [String]) {
        #expect(references("<img srcset=\"\(srcset)\">") == expected)
    }

    @Test func styleAttributeAndStyleElement() {
        let html = """
            <head><style>
            @import "reset.css";
            .a { background: url(a.png) }
            /* url(commented.png) */
            </style></head><body><div style="background: url('b.png'); border-image: url(&quot;c.png&quot;)">x</div>
            <style>.d { content: "url(not-a-link.png)"; background: url(d.png) }</style>
            """
        #expect(
            extract(html) == [
                ExtractedLink(reference: "reset.css", kind: .requisite, source: "style @import"),
                ExtractedLink(reference: "a.png", kind: .requisite, source: "style[url]"),
                ExtractedLink(reference: "b.png", kind: .requisite, source: "div[style]"),
                ExtractedLink(reference: "c.png", kind: .requisite, source: "div[style]"),
                ExtractedLink(reference: "d.png", kind: .requisite, source: "style[url]"),
            ])
    }

    @Test func unclosedStyleElementIsStillRead() {
        #expect(references("<style>.a { background: url(a.png) }") == ["a.png"])
    }

    @Test func entitiesInStyleTextAreNotDecoded() {
        // <style> is raw text: "&amp;" stays as written, unlike in attributes.
        #expect(
            references("<style>.a { background: url(a.png?x=1&amp;y=2) }</style><a href='b?x=1&amp;y=2'>")
                == ["a.png?x=1&amp;y=2", "b?x=1&y=2"])
    }

    @Test(arguments: [
        ("0; url=next.html", "next.html"),
        ("5;URL='next.html'", "next.html"),
        ("5 ; url = 'next.html' ", "next.html"),
        ("5 ; url = &quot;next.html&quot; ", "next.html"),
        ("3, next.html", "next.html"),
        ("0;url=next.html?a=1;b=2", "next.html?a=1;b=2"),
        ("1.5; url=x.html", "x.html"),
        ("0; 'q.html' trailing", "q.html"),
        ("0; url x.html", "url x.html"),
    ])
    func metaRefresh(content: String, expected: String) {
        #expect(
            extract(#"<meta http-equiv="Refresh" content="\#(content)">"#) == [
                ExtractedLink(reference: expected, kind: .navigation, source: "meta[refresh]")
            ])
    }

    @Test(arguments: ["5", "", "x; url=a.html", "0; url="])
    func metaRefreshWithoutURL(content: String) {
        #expect(extract(#"<meta http-equiv="refresh" content="\#(content)">"#).isEmpty)
    }

    @Test func otherMetaContentIsIgnored() {
        #expect(extract(#"<meta name="og:image" content="0; url=x.png"><meta charset="utf-8">"#).isEmpty)
    }

    @Test func firstBaseHrefOnly() {
        let found = HTMLLinkExtractor.links(in: Array(#"<base href=" /img/ "><base href="/other/"><img src=a.png>"#.utf8))
        #expect(found.baseHref == "/img/")
        #expect(found.links.map(\.reference) == ["a.png"])
        #expect(HTMLLinkExtractor.links(in: Array("<base target=_blank><a href=x>".utf8)).baseHref == nil)
    }

    @Test func skipsSchemesThatNameNothingToFetch() {
        let html = """
            <a href="javascript:void(0)"></a><a href=" JavaScript:x"></a><a href="mailto:a@b"></a><a href="tel:+1"></a>
            <img src="data:image/gif;base64,AAAA"><a href="about:blank"></a><img src="blob:https://x/1">
            <a href="#top"></a><a href="  #x"></a><a href=""></a><a href="   "></a>
            <a href="page.html#top"></a><a href="https://example.org/"></a><a href="//cdn.example/x.js"></a>
            <a href="weird:thing"></a><a href="a:b/c"></a><a href="?q=1"></a>
            """
        #expect(
            references(html) == [
                "page.html#top", "https://example.org/", "//cdn.example/x.js", "weird:thing", "a:b/c", "?q=1",
            ])
    }

    @Test func malformedMarkupIsRecovered() {
        let html = """
            <div><a href=one.html>unclosed <p><b>bold<a href = 'two.html' >two</b>
            <img src=three.png alt=x y> < stray less-than <a href=four.html?a=1&b=2>four
            <table><td><a href=five.html>five<tr><td background=six.png>
            <p <a href="seven.html">seven</a>
            """
        let found = references(html)
        for expected in ["one.html", "two.html", "three.png", "four.html?a=1&b=2", "five.html", "six.png"] {
            #expect(found.contains(expected), "\(expected) missing from \(found)")
        }
    }

    @Test func contentAfterTheClosingHTMLTagIsRead() {
        // libxml2 alone stops at </html>; browsers (and so the crawler) keep going.
        let html = "<html><body><a href=a.html></a></body></HTML >\n<script src=late.js></script></html><img src=b.png>"
        #expect(references(html) == ["a.html", "late.js", "b.png"])
        #expect(references("<a href=a></a></htmlx><a href=b></a>") == ["a", "b"])
    }

    @Test func attributeWithoutValueAndUnquotedValues() {
        #expect(references("<a href>x</a><a href=a.html?x=1 title=y>y</a><img src=b.png/>") == ["a.html?x=1", "b.png/"])
    }

    @Test func latin1PageWithNonASCIIHref() {
        // "café.html" and a style attribute "url(naïve.png)" in ISO-8859-1.
        let bytes: [UInt8] =
            Array("<a href=\"caf".utf8) + [0xE9] + Array(".html\">x</a><div style=\"background:url(na".utf8)
            + [0xEF] + Array("ve.png)\"></div><style>b{background:url(".utf8) + [0xFC] + Array(".png)}</style>".utf8)
        let charset = CharsetSniffer.charset(contentType: "text/html; charset=ISO-8859-1", prefix: bytes)
        let found = HTMLLinkExtractor.links(in: bytes, charset: charset).links.map(\.reference)
        #expect(found == ["café.html", "naïve.png", "ü.png"])
    }

    @Test func utf8PageWithNonASCIIHref() {
        #expect(
            references(#"<a href="ünïcode.html">x</a><style>a{background:url(çà.png)}</style>"#)
                == ["ünïcode.html", "çà.png"])
    }

    @Test(arguments: [1, 7, 4096])
    func chunkedFeedingMatchesWholeFeeding(chunkSize: Int) throws {
        let bytes = try fixture("index.html") + Array(Self.tricky.utf8)
        let whole = HTMLLinkExtractor.links(in: bytes)
        let extractor = HTMLLinkExtractor()
        var start = 0
        while start < bytes.count {
            extractor.feed(Array(bytes[start..<min(start + chunkSize, bytes.count)]))
            start += chunkSize
        }
        let chunked = extractor.finish()
        #expect(chunked == whole)
        #expect(whole.links.count > 30)
    }

    /// Markup whose tokens straddle chunk boundaries in interesting ways.
    static let tricky = """
        <!-- a comment with <a href="commented.html"> inside --><p>text &amp; more</p>
        <style>/* long */ .x{background:url("long-name-\(String(repeating: "x", count: 300)).png")}
        @import url(two.css);</style><script>var s = "<a href='in-script.html'>";</script>
        </html><img srcset="a,b.png 1x,   c.png 2x"><a href='q?x=1&amp;y=2'>q</a><div style="background:url(s.png)"></div>
        """

    @Test func commentsAndScriptsAreNotLinks() {
        #expect(!references(Self.tricky).contains("commented.html"))
        #expect(!references(Self.tricky).contains("in-script.html"))
    }

    @Test func fixturePageAndStyleSheet() throws {
        let page = HTMLLinkExtractor.links(in: try fixture("index.html"))
        #expect(page.baseHref == nil)
        let expected: [(String, LinkKind, String)] = [
            ("css/theme.css?v=2022.1", .requisite, "link[href]"),
            ("img/icon.png", .requisite, "link[href]"),
            ("fonts/body.woff2", .requisite, "link[href]"),
            ("img/style-block.png", .requisite, "style[url]"),
            ("app.js?build=7", .requisite, "script[src]"),
            ("docs", .navigation, "a[href]"),
            ("docs/", .navigation, "a[href]"),
            ("docs/guide.html#install", .navigation, "a[href]"),
            ("page.html?id=3&lang=en", .navigation, "a[href]"),
            ("%C3%BCn%C3%AFcode.html", .navigation, "a[href]"),
            ("ünïcode.html", .navigation, "a[href]"),
            ("with%20space.html", .navigation, "a[href]"),
            ("old.html", .navigation, "a[href]"),
            ("moved", .navigation, "a[href]"),
            ("refresh.html", .navigation, "a[href]"),
            ("base.html", .navigation, "a[href]"),
            ("img/b.png", .requisite, "img[src]"),
            ("img/a,1.png", .requisite, "img[srcset]"),
            ("img/b.png", .requisite, "img[srcset]"),
            ("img/lazy.png", .requisite, "img[data-src]"),
            ("img/lazy.png", .requisite, "img[data-srcset]"),
            ("img/lazy-2x.png", .requisite, "img[data-srcset]"),
            ("img/pic-large.png", .requisite, "source[srcset]"),
            ("img/pic-small.png", .requisite, "source[srcset]"),
            ("img/pic-small.png", .requisite, "img[src]"),
            ("img/inline.png", .requisite, "div[style]"),
            ("img/poster.png", .requisite, "video[poster]"),
            ("media/clip.mp4", .requisite, "source[src]"),
            ("media/captions.vtt", .requisite, "track[src]"),
            ("frame.html", .requisite, "iframe[src]"),
            ("img/b.png", .requisite, "object[data]"),
            ("img/sprite.svg#dot", .requisite, "use[href]"),
        ]
        #expect(page.links == expected.map { ExtractedLink(reference: $0.0, kind: $0.1, source: $0.2) })

        let css = String(decoding: try fixture("css/theme.css"), as: UTF8.self)
        #expect(
            CSSLinkExtractor.links(in: css) == [
                ExtractedLink(reference: "imported.css", kind: .requisite, source: "css @import"),
                ExtractedLink(reference: "print.css", kind: .requisite, source: "css @import"),
                ExtractedLink(reference: "../fonts/body.woff2", kind: .requisite, source: "css url()"),
                ExtractedLink(reference: "../img/bg.png", kind: .requisite, source: "css url()"),
            ])
    }

    @Test func fixturePagesWithBaseAndRefresh() throws {
        let base = HTMLLinkExtractor.links(in: try fixture("base.html"))
        #expect(base.baseHref == "/img/")
        #expect(base.links.map(\.reference) == ["base-target.png"])
        let refresh = HTMLLinkExtractor.links(in: try fixture("refresh.html"))
        #expect(refresh.links == [ExtractedLink(reference: "docs/guide.html", kind: .navigation, source: "meta[refresh]")])
    }
}

/// The bytes of a file of the `links` fixture site.
func fixture(_ path: String) throws -> [UInt8] {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("fixtures/sites/links")
    let data = try #require(FileManager.default.contents(atPath: root.appendingPathComponent(path).path))
    return Array(data)
}
