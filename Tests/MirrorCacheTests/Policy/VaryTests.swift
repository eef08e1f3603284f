import MirrorCache
import NIOHTTP1
import Testing

/// RFC 9111 §4.1: calculating cache keys with the Vary header field.
@Suite("Policy: §4.1 Vary")
struct PolicyVaryTests {
    typealias F = PolicyFixture

    func key(vary: [String], _ request: [(String, String)]) -> String? {
        CachePolicy.varyKey(responseHeaders: F.headers(vary.map { ("Vary", $0) }), request: F.headers(request))
    }

    @Test func withoutVaryEveryRequestMatches() {
        let a = key(vary: [], [("Accept-Encoding", "gzip")])
        let b = key(vary: [], [("Accept-Language", "fr"), ("User-Agent", "x")])
        #expect(a == "")
        #expect(a == b)
        #expect(key(vary: [], []) == "")
    }

    @Test func differentValuesOfAVariedFieldGiveDifferentKeys() {
        let gzip = key(vary: ["Accept-Encoding"], [("Accept-Encoding", "gzip")])
        let br = key(vary: ["Accept-Encoding"], [("Accept-Encoding", "br")])
        #expect(gzip != nil && br != nil)
        #expect(gzip != br)
        #expect(gzip == key(vary: ["Accept-Encoding"], [("Accept-Encoding", "gzip")]))
    }

    @Test func fieldsNotNamedByVaryAreIgnored() {
        let a = key(vary: ["Accept-Encoding"], [("Accept-Encoding", "gzip"), ("User-Agent", "one")])
        let b = key(vary: ["Accept-Encoding"], [("User-Agent", "two"), ("Accept-Encoding", "gzip"), ("Cookie", "c=1")])
        #expect(a == b)
    }

    @Test func orderAndCaseOfVaryNamesDoNotMatter() {
        let request = [("Accept-Encoding", "gzip"), ("Accept-Language", "en")]
        let a = key(vary: ["Accept-Encoding, Accept-Language"], request)
        let b = key(vary: ["accept-language", "ACCEPT-ENCODING"], request)
        let c = key(vary: ["Accept-Language,Accept-Encoding, accept-encoding"], request)
        #expect(a == b)
        #expect(a == c)
    }

    @Test func everyVariedFieldTakesPart() {
        let vary = ["Accept-Encoding, Accept-Language"]
        let a = key(vary: vary, [("Accept-Encoding", "gzip"), ("Accept-Language", "en")])
        let b = key(vary: vary, [("Accept-Encoding", "gzip"), ("Accept-Language", "fr")])
        let c = key(vary: vary, [("Accept-Encoding", "br"), ("Accept-Language", "en")])
        #expect(a != b)
        #expect(a != c)
        #expect(b != c)
    }

    /// A Vary member that is no field name (fuzzing found `Authorization=TOPSECRET`) never
    /// matches, as `*`: its line in the key would read as the value of another field, and a
    /// credential field's line as its value in the clear.
    @Test(arguments: ["Authorization=TOPSECRET", "Accept-Encoding=gzip", "Accept Encoding", "\u{E9}t\u{E9}", "a\"b", "\u{212A}"])
    func aMemberThatIsNoFieldNameNeverMatches(member: String) {
        #expect(key(vary: ["Cookie, \(member)"], [("Authorization", "Basic dXNlcjpwYXNz"), ("Accept-Encoding", "gzip")]) == nil)
        #expect(key(vary: [member], []) == nil)
    }

    /// A field a response's Connection names is not stored, however the list is written: cut on
    /// `Character`s, a mark before the comma hid the next name.
    @Test func fieldsConnectionNamesAreNotStoredWhateverPrecedesTheComma() {
        let stored = CachePolicy.storableHeaders(F.headers([("Connection", "x\u{600}, X-Secret"), ("X-Secret", "1"), ("X-Kept", "2")]))
        #expect(stored["x-secret"].isEmpty)
        #expect(stored["x-kept"] == ["2"])
    }

    @Test func emptyMembersOfVaryAreSkipped() {
        let request = [("Accept-Encoding", "gzip")]
        #expect(key(vary: ["Accept-Encoding, , "], request) == key(vary: ["Accept-Encoding"], request))
        #expect(key(vary: ["Accept-Encoding, , "], request) != nil)
    }

    @Test func caseOfRequestFieldNamesDoesNotMatter() {
        let a = key(vary: ["Accept-Encoding"], [("accept-encoding", "gzip")])
        let b = key(vary: ["Accept-Encoding"], [("ACCEPT-ENCODING", "gzip")])
        #expect(a == b)
    }

    @Test func anAbsentFieldOnlyMatchesAnAbsentField() {
        // §4.1: "If (after any normalization that might take place) a header field is absent from a
        // request, it can only match another request if it is also absent there."
        let absent = key(vary: ["Accept-Encoding"], [])
        let empty = key(vary: ["Accept-Encoding"], [("Accept-Encoding", "")])
        let blank = key(vary: ["Accept-Encoding"], [("Accept-Encoding", "  ")])
        let present = key(vary: ["Accept-Encoding"], [("Accept-Encoding", "gzip")])
        #expect(absent != nil)
        #expect(absent == key(vary: ["Accept-Encoding"], [("User-Agent", "x")]))
        #expect(absent != empty)
        #expect(absent != blank)
        #expect(absent != present)
        #expect(empty != present)
    }

    @Test func anAbsentFieldDiffersFromAnEmptyOneAmongSeveral() {
        let vary = ["Accept-Encoding, Accept-Language"]
        let a = key(vary: vary, [("Accept-Language", "en")])
        let b = key(vary: vary, [("Accept-Language", "en"), ("Accept-Encoding", "")])
        #expect(a != b)
    }

    @Test(arguments: ["gzip, br", "gzip,  br", "  gzip, br  ", "gzip,\tbr", "gzip, \t br"])
    func whitespaceIsNormalized(value: String) {
        #expect(
            key(vary: ["Accept-Encoding"], [("Accept-Encoding", value)])
                == key(vary: ["Accept-Encoding"], [("Accept-Encoding", "gzip, br")]))
    }

    @Test func severalFieldLinesEqualOneCombinedLine() {
        let lines = key(vary: ["Accept-Encoding"], [("Accept-Encoding", "gzip"), ("Accept-Encoding", "br")])
        let combined = key(vary: ["Accept-Encoding"], [("Accept-Encoding", "gzip, br")])
        #expect(lines == combined)
    }

    @Test func valueOrderMatters() {
        // No semantic normalization beyond whitespace and combining lines.
        #expect(
            key(vary: ["Accept-Encoding"], [("Accept-Encoding", "gzip, br")])
                != key(vary: ["Accept-Encoding"], [("Accept-Encoding", "br, gzip")]))
    }

    @Test(arguments: [["*"], [" * "], ["Accept, *"], ["*, Accept"], ["Accept", "*"]])
    func varyStarNeverMatches(vary: [String]) {
        #expect(key(vary: vary, []) == nil)
        #expect(key(vary: vary, [("Accept", "text/html")]) == nil)
    }
}
