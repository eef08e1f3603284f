import MirrorCache
import NIOHTTP1
import Testing

/// The cache's header text is read back by bytes: a value ending in CR made one `Character` of
/// CR and the line feed after it, and the next field joined the value; a mark after the space
/// made one with it, and the space stayed.
@Suite("The cache's header text")
struct HeaderCodingTests {
    @Test func aValueEndingInACarriageReturnKeepsTheNextField() {
        let headers = HTTPHeaders([("X-A", "a\r"), ("Vary", "Accept")])
        let decoded = HeaderCoding.decode(HeaderCoding.encode(headers))
        #expect(decoded["vary"] == ["Accept"])
        #expect(decoded.map { Array($0.value.utf8) } == [Array("a\r".utf8), Array("Accept".utf8)])
    }

    @Test func aMarkAfterTheSpaceIsTheValuesFirst() {
        let decoded = HeaderCoding.decode(HeaderCoding.encode(HTTPHeaders([("X-B", "\u{301}v")])))
        #expect(decoded.first(name: "x-b").map { Array($0.utf8) } == Array("\u{301}v".utf8))
    }
}
