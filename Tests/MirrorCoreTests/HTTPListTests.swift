import MirrorCore
import Testing

@Suite("HTTP list fields")
struct HTTPListTests {
    @Test func membersAreCutAtEveryCommaByBytes() {
        #expect(HTTPList.members(["a, b", " ,c ,, "]) == ["a", "b", "c"])
        // A prepended mark (U+0600) makes one `Character` with the comma after it.
        #expect(HTTPList.members(["x\u{600}, X-Secret"]).map { Array($0.utf8) } == [Array("x\u{600}".utf8), Array("X-Secret".utf8)])
        #expect(HTTPList.members([]).isEmpty)
    }
}
