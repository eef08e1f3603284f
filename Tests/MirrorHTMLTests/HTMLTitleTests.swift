import MirrorHTML
import Testing

@Suite("Page titles")
struct HTMLTitleTests {
    @Test func theTitleIsDecodedFromThePagesCharsetWithReferencesReplaced() {
        let page =
            Array("<html><head><meta charset=\"iso-8859-1\"><TITLE lang=fr>\n Caf".utf8) + [0xE9]
            + Array("s &amp;\n  th".utf8) + [0xE9] + Array("s </title></head>".utf8)
        #expect(HTMLTitle.title(in: page, contentType: nil) == "Cafés & thés")
        #expect(HTMLTitle.title(in: page, contentType: "text/html; charset=utf-8") == "Caf\u{FFFD}s & th\u{FFFD}s")
    }

    @Test func noTitleIsNil() {
        #expect(HTMLTitle.title(in: Array("<html><titles>x</titles><title></title>".utf8), contentType: nil) == nil)
        #expect(HTMLTitle.title(in: Array("<title>never closed".utf8), contentType: nil) == nil)
        #expect(HTMLTitle.title(in: Array("<p>no title</p>".utf8), contentType: nil) == nil)
    }

    /// Found by the `charset` fuzz target: a NUL written as it is stayed in the text, where one
    /// written `&#0;` ended it (as libxml2 ends a value at either).
    @Test func aNULEndsTheTitleHoweverItIsWritten() {
        #expect(HTMLTitle.title(in: Array("<title>a\u{0}b</title>".utf8), contentType: nil) == "a")
        #expect(HTMLTitle.title(in: Array("<title>a&#0;b</title>".utf8), contentType: nil) == "a")
        #expect(HTMLTitle.title(in: Array("<title>a\u{0}b &amp;</title>".utf8), contentType: nil) == "a")
    }
}
