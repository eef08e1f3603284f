import Testing

@testable import MirrorHTML

@Suite struct HTMLReferenceLocatorTests {
    /// The text of each reference's range and its decoded value.
    private func located(_ html: String, charset: String = "utf-8", chunk: Int? = nil) -> [String] {
        let bytes = Array(html.utf8)
        let locator = HTMLReferenceLocator(charset: charset)
        if let chunk {
            var start = 0
            while start < bytes.count {
                locator.feed(Array(bytes[start..<min(start + chunk, bytes.count)]))
                start += chunk
            }
        } else {
            locator.feed(bytes)
        }
        return locator.finish().map { reference in
            let raw = String(decoding: bytes[reference.range], as: UTF8.self)
            return (reference.role == .base ? "base:" : "") + (raw == reference.value ? raw : "\(raw)=\(reference.value)")
        }
    }

    @Test func attributesQuotedUnquotedAndWithEntities() {
        let html = #"<p><a HREF = 'a.html' >x</a><img src=b.png alt=x><a href=" c.html?x=1&amp;y=2 ">"#
        #expect(located(html) == ["a.html", "b.png", "c.html?x=1&amp;y=2=c.html?x=1&y=2"])
    }

    @Test func aTagWrittenInsideAnotherAttributeIsNotTaken() {
        let html = #"<a href=x title="<a href=y title=z>">t</a><img alt='<img src=q>' src=r>"#
        for chunk in [nil, 1, 3, 7] { #expect(located(html, chunk: chunk) == ["x", "r"]) }
    }

    @Test func duplicateAttributesFirstWins() {
        #expect(located(#"<a href="first.html" href="second.html">x</a>"#) == ["first.html"])
    }

    @Test func greaterThanInsideQuotes() {
        #expect(located(#"<a title="a > b" href="t.html">x</a><img src="i.png" alt='>'>"#) == ["t.html", "i.png"])
    }

    @Test func srcsetMetaRefreshStyleAndBase() {
        let html = """
            <html><head><base href="/img/"><meta http-equiv="refresh" content="5; URL='next.html'">
            <style>p { background: url( "s.png" ) } @import 'i.css';</STYLE></head>
            <body><img srcset="a,1.png 1x,b.png 2x" style="background:url(c.png)"><a href="#top">t</a>
            <a href="mailto:x@y">m</a></body></html>
            """
        let expected = ["base:/img/", "next.html", "s.png", "i.css", "a,1.png", "b.png", "c.png"]
        for chunk in [nil, 1, 5, 64] { #expect(located(html, chunk: chunk) == expected) }
    }

    @Test func commentsAndScriptsAreNotTags() {
        let html = #"<!-- <a href="no.html"> --><script>var s = '<a href="no2.html">';</script><a href="yes.html">"#
        #expect(located(html) == ["yes.html"])
    }

    @Test func latin1ValuesAreDecoded() {
        let bytes: [UInt8] = Array(#"<a href="caf"#.utf8) + [0xE9] + Array(#".html">x</a><img src="b.png">"#.utf8)
        for chunk in [bytes.count, 2] {
            let locator = HTMLReferenceLocator(charset: "iso-8859-1")
            var start = 0
            while start < bytes.count {
                locator.feed(Array(bytes[start..<min(start + chunk, bytes.count)]))
                start += chunk
            }
            let references = locator.finish()
            #expect(references.map(\.value) == ["café.html", "b.png"])
            #expect(references.map(\.range) == [9..<18, 35..<40])
        }
    }

    @Test func styleValuesWithCharacterReferencesAndLatin1() {
        let html = #"<div style="background:url(a.png?x=1&amp;y=2)"></div><p style="background:url(&quot;q.png&quot;)">"#
        // Quotes written as references are replaced with the URL (which needs none).
        #expect(located(html) == ["a.png?x=1&amp;y=2=a.png?x=1&y=2", "&quot;q.png&quot;=q.png"])
        let latin1: [UInt8] = Array("<style>p{background:url(caf".utf8) + [0xE9] + Array(".png?a&amp;b)}</style>".utf8)
        #expect(HTMLReferenceLocator.references(in: latin1, charset: "iso-8859-1").map(\.value) == ["café.png?a&amp;b"])
    }

    @Test func metaRefreshWithQuotesWrittenAsReferences() {
        let html =
            #"<meta http-equiv=refresh content="0; url=&quot;next.html?a=1&amp;b=2&quot;"><meta http-equiv=refresh content="0; url=&quot;x&quot;y&quot;">"#
        #expect(located(html) == ["&quot;next.html?a=1&amp;b=2&quot;=next.html?a=1&b=2"])
    }

    /// Where libxml2 reads a tag differently from its bytes, the tag is still placed when its link
    /// values agree: a valueless attribute (libxml2 reports it empty), a name libxml2 cuts short,
    /// HTML 4 named references and numeric ones without `;`.
    @Test func tagsLibxml2ReadsDifferentlyAreStillPlaced() {
        #expect(located("<img src=a.png style><img data-src=b.png alt>") == ["a.png", "b.png"])
        #expect(located("<a on:click|once href=c.html>x</a><a foo@bar href=d.html>y</a>") == ["c.html", "d.html"])
        #expect(
            located(#"<a href="caf&eacute;.html">x</a><a href="e?a=1&#38b=2">y</a>"#)
                == ["caf&eacute;.html=café.html", "e?a=1&#38b=2=e?a=1&b=2"])
    }

    /// A tag whose bytes are not found gives its links to the crawl, not to the rewriter: here
    /// libxml2 reads `srcset` and `href` out of the quoted value of an attribute `x&` (a browser
    /// reads neither), and no start tag holds them.
    @Test func unplacedTagsStillGiveTheirLinks() {
        let bytes = Array(#"<head><base x&="y href=/b/ "><img x&="y srcset=s.png "></head><a href=x.html>"#.utf8)
        let locator = HTMLReferenceLocator()
        locator.feed(bytes)
        let references = locator.finish()
        #expect(references.map(\.value) == ["x.html"])
        let links = locator.links
        #expect(links.links.map(\.reference) == ["x.html", "s.png"])
        #expect(links.baseHref == "/b/")
        #expect(HTMLLinkExtractor.links(in: bytes) == links)
    }

    /// A single-byte charset's byte may take three in UTF-8 (`€` is 0x80 in windows-1252).
    @Test func valuesGrowingThreefoldAreDecodedWhole() {
        let bytes = Array(#"<a href=""#.utf8) + [UInt8](repeating: 0x80, count: 30) + Array(#".html">x</a>"#.utf8)
        #expect(
            HTMLReferenceLocator.references(in: bytes, charset: "windows-1252").map(\.value)
                == [String(repeating: "\u{20AC}", count: 30) + ".html"])
    }

    /// A `<title>` or `<textarea>` left open near the top of a long page: browsers read the rest
    /// as text, libxml2 as markup, and every link it reports is placed — in linear time (a 600 KB
    /// page of 20,000 such links took 6 s when each one rescanned the page).
    @Test func tagsAfterAnOpenTitleOrTextareaAreAllPlaced() {
        for opening in ["<title>t", "<textarea>"] {
            let html = "<html><head>" + opening + (0..<3000).map { "<a href=p\($0).html>\($0)</a>" }.joined()
            let locator = HTMLReferenceLocator()
            locator.feed(Array(html.utf8))
            #expect(locator.finish().count == 3000, "\(opening)")
            #expect(locator.links.links.count == 3000, "\(opening)")
        }
        // A closed title holding the page's own link: each is placed where libxml2 read it.
        #expect(located("<title><a href=/x.html></title><a href=/x.html>") == ["/x.html", "/x.html"])
    }

    /// Tags libxml2 reports although the byte scanner would skip them: a comment ended by `--!>`,
    /// a `<style>` libxml2 closes at once (`<style><body>`), a `<script>` inside another tag's name.
    @Test func tagsAfterWhatOnlyLooksLikeCommentsOrRawTextArePlaced() {
        #expect(located(#"<!-- a --!><a href="x.html">x</a><!-- <a href="y.html"> --><a href="y.html">"#) == ["x.html", "y.html"])
        #expect(located(#"<p>x</p><style><body><a href=q.html>q</a>"#) == ["q.html"])
        #expect(located(#"<hea<script>d><a href=x.html>x</a><img src=i.png>"#) == ["x.html", "i.png"])
    }

    /// libxml2 ends a value at a NUL byte and reads no further in the document: the reference is
    /// what precedes the NUL, which stays where it is. A NUL in text between tags changes nothing.
    @Test func aNULEndsAValue() {
        var bytes =
            Array(#"<p>a"#.utf8) + [0] + Array(#"b</p><a href="/root.html"#.utf8) + [0] + Array(#"junk.html">x</a><a href=y.html>"#.utf8)
        let references = HTMLReferenceLocator.references(in: bytes)
        #expect(references.map(\.value) == ["/root.html"])
        #expect(references.map { String(decoding: bytes[$0.range], as: UTF8.self) } == ["/root.html"])
        bytes[references[0].range.upperBound] = UInt8(ascii: "?")
        #expect(HTMLReferenceLocator.references(in: bytes).map(\.value) == ["/root.html?junk.html", "y.html"])
    }

    /// Character references libxml2 reads as U+0000 end the value too; digits are not limited.
    @Test func numericReferencesAreReadAsLibxml2ReadsThem() {
        #expect(
            located(#"<a href="a&#;b.html">1</a><a href="c&#1;d.html">2</a><a href="e&#0000000065;.html">3</a><a href="&#xD800;">4</a>"#)
                == ["a&#;b.html=a", "c&#1;d.html=c", "e&#0000000065;.html=eA.html"])
    }

    /// Bytes that are not UTF-8 in a UTF-8 page: libxml2 reads them as Latin-1 (and drops some);
    /// the tag is placed all the same, and its value reads them as U+FFFD, as browsers do.
    @Test func invalidUTF8IsPlaced() {
        let bytes =
            Array("<p>".utf8) + [0xFF, 0xC3, 0x28] + Array("</p><a".utf8) + [0xF0, 0x28]
            + Array(#" href="/caf"#.utf8) + [0xE9] + Array(#".html">x</a><img src="i"#.utf8) + [0xF0, 0x28, 0x8C, 0xBC]
            + Array(#".png">"#.utf8)
        #expect(HTMLReferenceLocator.references(in: bytes).map(\.value) == ["/caf\u{FFFD}.html", "i\u{FFFD}(\u{FFFD}\u{FFFD}.png"])
    }

    /// Where libxml2 ends a tag's name (any byte but a letter, digit, `:`, `-`, `_`, `.`), what
    /// it reads as an attribute, and values it reports empty out of what is no attribute here.
    @Test func tagsNamedAndReadAsLibxml2ReadsThem() {
        #expect(
            located(#"<a' href="a.html">a</a><link&#0; rel=stylesheet href="s.css"><a<! href=b.html>b</a>"#) == [
                "a.html", "s.css", "b.html",
            ])
        #expect(located(#"<img src=i.png srcset<p =j.png 1x alt=x><a href=/r.html<img src=k.png>x</a>"#) == ["i.png", "/r.html<img"])
        #expect(located(#"<a href="x.html" <img src="i.png">x</a><a href=x.html<img src=y.png>"#) == ["x.html", "x.html<img"])
    }

    @Test func extractorStillSeesTheSameLinks() {
        let html = #"<link rel=stylesheet href=s.css><img srcset="a.png 1x" data-src=l.png><div style="background:url(d.png)">"#
        #expect(HTMLLinkExtractor.links(in: Array(html.utf8)).links.map(\.reference) == ["s.css", "a.png", "l.png", "d.png"])
    }
}

/// Regression: a tag libxml2 reports without a link role must not be taken for the next one
/// with the same attribute names (real Sphinx pages: `<link rel="search" …>` then `<link rel="next" …>`).
@Test func aSkippedTagWithTheSameAttributesIsNotMistakenForTheNextOne() {
    let html = """
        <html><head><link rel="search" title="Search" href="_static/opensearch.xml"/>
        <link rel="next" title="Next" href="distutils/index.html" /></head><body><script>var a = '<a href="x.html">';</script>
        <!-- <a href="commented.html"> --><a href="real.html">r</a></body></html>
        """
    let bytes = Array(html.utf8)
    let references = HTMLReferenceLocator.references(in: bytes)
    let found = references.map { String(decoding: bytes[$0.range], as: UTF8.self) }
    #expect(found == ["distutils/index.html", "real.html"])
}
