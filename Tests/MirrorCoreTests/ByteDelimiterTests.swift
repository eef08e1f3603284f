import MirrorCore
import Testing

/// Text from outside is cut at its ASCII delimiters by bytes: a mark after `&`, `=` or a space
/// makes one `Character` with it (U+0301 combines, U+0600 is a prepended mark that joins what
/// follows), and a cut on `Character`s passed over the delimiter.
@Suite("Cutting outside text at ASCII delimiters")
struct ByteDelimiterTests {
    @Test func queryParametersAreSplitAtEveryAmpersand() {
        #expect(QueryParameters.split("utm_a=x\u{600}&id=evil") == ["utm_a=x\u{600}", "id=evil"])
        #expect(QueryParameters.split("a=1&\u{301}id=2&&") == ["a=1", "\u{301}id=2", "", ""])
        #expect(QueryParameters.name(of: "utm\u{600}=x=y") == "utm\u{600}")
        #expect(QueryParameters.name(of: "flag") == "flag")
    }

    /// The parts keep every scalar between the cuts, at the ends and around non-ASCII text too.
    @Test func textIsCutIntoPartsAtEverySeparatorByte() {
        let parts = "/caf\u{E9}/\u{301}x//y\u{600}/".parts(separatedBy: UInt8(ascii: "/"))
        let expected = ["", "caf\u{E9}", "\u{301}x", "", "y\u{600}", ""]
        #expect(parts.map { Array($0.unicodeScalars) } == expected.map { Array($0.unicodeScalars) })
        #expect("".parts(separatedBy: UInt8(ascii: "/")) == [""])
        #expect("no separator".parts(separatedBy: UInt8(ascii: "/")) == ["no separator"])
    }

    @Test func httpWhiteSpaceIsTrimmedWhateverFollowsIt() {
        #expect(" \u{301}x ".trimmingASCIIWhitespace().unicodeScalars.elementsEqual("\u{301}x".unicodeScalars))
        #expect("x\u{600} \t".trimmingASCIIWhitespace().unicodeScalars.elementsEqual("x\u{600}".unicodeScalars))
        #expect(" \t ".trimmingASCIIWhitespace().isEmpty)
        #expect("\u{A0}x\u{A0}".trimmingASCIIWhitespace() == "\u{A0}x\u{A0}")
    }

    /// Host names are compared by bytes, as the crawl's URLs are: a prepended mark before the
    /// `.` hid the subdomain, and `==` took two spellings of `é` for one host.
    @Test func hostPatternsCompareBytes() throws {
        let wildcard = try #require(HostPattern("*.example.org"))
        #expect(wildcard.matches(host: "x\u{600}.example.org", port: 443))
        #expect(!wildcard.matches(host: "x.example.org\u{301}", port: 443))
        let plain = try #require(HostPattern("caf\u{E9}.org"))
        #expect(plain.matches(host: "caf\u{E9}.org", port: 80))
        #expect(!plain.matches(host: "cafe\u{301}.org", port: 80))
        #expect("x\u{600}.org".bytesEnd(with: ".org"))
        #expect(!"org".bytesEnd(with: ".org"))
    }

    @Test func httpDatesAreReadBetweenTheirWhiteSpace() {
        #expect(HTTPDate.parse(" \tSun, 06 Nov 1994 08:49:37 GMT\t ") == 784_111_777)
    }
}
