import Testing

@testable import MirrorHTML

private func sniff(_ contentType: String?, _ html: String) -> String {
    CharsetSniffer.charset(contentType: contentType, prefix: Array(html.utf8))
}

@Suite("Charset sniffing")
struct CharsetSnifferTests {
    @Test func headerWinsOverBOMAndMeta() {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(#"<meta charset="shift_jis">"#.utf8)
        #expect(CharsetSniffer.charset(contentType: "text/html; charset=EUC-JP", prefix: bytes) == "euc-jp")
    }

    @Test func bomWinsOverMeta() {
        let meta = Array(#"<meta charset="shift_jis">"#.utf8)
        #expect(CharsetSniffer.charset(contentType: "text/html", prefix: [0xEF, 0xBB, 0xBF] + meta) == "utf-8")
        #expect(CharsetSniffer.charset(contentType: nil, prefix: [0xFF, 0xFE, 0x3C, 0x00]) == "utf-16le")
        #expect(CharsetSniffer.charset(contentType: nil, prefix: [0xFE, 0xFF, 0x00, 0x3C]) == "utf-16be")
    }

    @Test(arguments: [
        ("text/html;charset=utf-8", "utf-8"),
        ("text/html; charset=\"Shift_JIS\"", "shift_jis"),
        ("text/html ; foo=bar ; CHARSET = koi8-r ", "koi8-r"),
        ("text/html; charset=", "utf-8"),
        ("text/html", "utf-8"),
    ])
    func contentTypeParameter(contentType: String, expected: String) {
        #expect(sniff(contentType, "<p>") == expected)
    }

    @Test(arguments: [
        (#"<meta charset="KOI8-R">"#, "koi8-r"),
        (#"<meta charset=koi8-r>"#, "koi8-r"),
        (#"<META CHARSET='koi8-r'/>"#, "koi8-r"),
        (#"<meta http-equiv="Content-Type" content="text/html; charset=koi8-r">"#, "koi8-r"),
        (#"<meta content="text/html; charset='koi8-r'" http-equiv="content-type">"#, "koi8-r"),
        (#"<meta content="text/html; charset=koi8-r">"#, "utf-8"),
        (#"<!-- <meta charset="koi8-r"> --><meta charset="euc-jp">"#, "euc-jp"),
        (#"<div title="<meta charset=koi8-r>"><meta charset="euc-jp">"#, "euc-jp"),
        (#"<meta name="x" charset="euc-jp" charset="koi8-r">"#, "euc-jp"),
        (#"<meta charset="utf-16le">"#, "utf-8"),
        // Found by the `charset` fuzz target: labels of UTF-32, or of UTF-16 with white space
        // around them, were kept, and the page was then read as having no links.
        (#"<meta charset="utf-32">"#, "utf-8"),
        (#"<meta charset=" UTF-16 ">"#, "utf-8"),
        (#"<meta http-equiv="content-type" content="text/html; charset=ucs-2">"#, "utf-8"),
        ("<p>no declaration</p>", "utf-8"),
    ])
    func metaPrescan(html: String, expected: String) {
        #expect(sniff(nil, "<!DOCTYPE html><html><head>" + html) == expected)
    }

    @Test func prescanLooksAtTheFirst1024BytesOnly() {
        let padding = String(repeating: " ", count: 1024)
        #expect(sniff(nil, padding + #"<meta charset="koi8-r">"#) == "utf-8")
        #expect(sniff(nil, String(repeating: " ", count: 990) + #"<meta charset="koi8-r">"#) == "koi8-r")
    }

    @Test(arguments: ["iso-8859-1", "ISO-8859-1", "latin1", "us-ascii", "windows-1252"])
    func latin1LabelsBecomeWindows1252(label: String) {
        // This libxml2 has iconv, so it knows windows-1252.
        #expect(HTMLSAXParser.supportsEncoding("windows-1252"))
        #expect(sniff("text/html; charset=\(label)", "") == "windows-1252")
        #expect(sniff(nil, #"<meta charset="\#(label)">"#) == "windows-1252")
    }

    @Test func windows1252DecodesTheC1Range() {
        // 0x80 is "€" in windows-1252 but a control character in ISO-8859-1.
        let bytes: [UInt8] = Array("<a href=\"".utf8) + [0x80] + Array(".html\">".utf8)
        let charset = CharsetSniffer.charset(contentType: "text/html; charset=iso-8859-1", prefix: bytes)
        #expect(HTMLLinkExtractor.links(in: bytes, charset: charset).links.map(\.reference) == ["€.html"])
    }

    @Test func unknownLabelsAreKeptLowerCased() {
        #expect(sniff("text/html; charset=X-Unknown", "") == "x-unknown")
        #expect(!HTMLSAXParser.supportsEncoding("x-unknown"))
    }

    /// Found by the `charset` fuzz target: libxml2 converts a lone UTF-16 surrogate to its three
    /// bytes, which are no UTF-8, and "converts" UTF-8 by copying it; such bytes now read as U+FFFD.
    @Test func conversionsGiveUTF8() {
        let loneSurrogate: [UInt8] = [0x61, 0x00, 0xC2, 0xDD, 0x62, 0x00]
        #expect(CharsetDecoder.utf8(loneSurrogate[...], from: "utf-16le") == Array("a\u{FFFD}\u{FFFD}\u{FFFD}b".utf8))
        #expect(CharsetDecoder.utf8([0x61, 0xFF, 0x62][...], from: "utf-8") == Array("a\u{FFFD}b".utf8))
        #expect(
            CharsetDecoder.utf8(Array("caf\u{E9}".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }[...], from: "utf-16le")
                == Array("caf\u{E9}".utf8))
    }

    /// Found by the `charset` fuzz target: a label of white space alone was sniffed as an empty
    /// label. It names no encoding, so the next declaration counts, as in browsers.
    @Test func aLabelOfWhiteSpaceAloneNamesNothing() {
        #expect(sniff(nil, #"<meta charset=" "><meta charset="koi8-r">"#) == "koi8-r")
        #expect(sniff(nil, #"<meta charset=" ">"#) == "utf-8")
        #expect(sniff(#"text/html; charset=" ""#, "") == "utf-8")
    }

    /// Labels are trimmed of the Encoding standard's white space only (tab, LF, FF, CR, space):
    /// a no-break space is part of the label, as in browsers.
    @Test func onlyASCIIWhiteSpaceIsTrimmed() {
        #expect(sniff("text/html; charset=\tkoi8-r\u{C}", "") == "koi8-r")
        #expect(sniff(nil, "<meta charset=\"\u{A0}koi8-r\">") == "\u{A0}koi8-r")
        #expect(sniff("text/html; charset=\u{A0}", "") == "\u{A0}")
    }

    /// Found by the `charset` fuzz target: a label starting with a combining mark, given back as a
    /// Content-Type's charset, was not found there: the mark made one `Character` with the `=`
    /// before it. The parameter is now read scalar by scalar.
    @Test func aLabelStartingWithACombiningMarkIsReadFromTheContentType() {
        let label = "\u{617}\u{FFFD}t=\u{0}/"
        #expect(sniff(nil, "<meta charset=\(label)\r>") == label)
        #expect(sniff("text/html; charset=\(label)", "") == label)
        #expect(sniff("text/html; charset=\"\u{301}x\"", "") == "\u{301}x")
    }

    /// The prescan reads a `content` value by bytes, as the HTML spec does: a Greek question mark
    /// (U+037E) is canonically `;` and ended the label on `Character`s.
    @Test func aContentValueIsReadByBytes() {
        let label = sniff(nil, "<meta http-equiv=\"content-type\" content=\"text/html; charset=koi8-r\u{37E}\">")
        #expect(Array(label.utf8) == Array("koi8-r\u{37E}".utf8))
        #expect(sniff(nil, #"<meta http-equiv="Content-Type" content="text/html; CHARSET = 'koi8-r'">"#) == "koi8-r")
    }
}
