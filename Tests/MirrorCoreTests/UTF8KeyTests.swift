import MirrorCore
import Testing

/// `UTF8Key`: text equal by its bytes, not by canonical equivalence, and hashed alike however
/// it is held.
@Suite("UTF8Key")
struct UTF8KeyTests {
    @Test func twoSpellingsOfOneCharacterAreTwoKeys() {
        let composed = "caf\u{E9}.html"
        let decomposed = "cafe\u{301}.html"
        #expect(composed == decomposed, "the premise: Strings compare by canonical equivalence")
        #expect(UTF8Key(composed) != UTF8Key(decomposed))
        #expect(Set([UTF8Key(composed), UTF8Key(decomposed)]).count == 2)
        #expect(UTF8Key(composed) == UTF8Key(String(decoding: Array(composed.utf8), as: UTF8.self)))
    }

    @Test func aSliceIsTheKeyOfItsText() {
        let page = "http://h/a.html#top"
        let slice = page[..<page.firstIndex(of: "#")!]
        var targets: [UTF8Key: Int] = [:]
        targets[UTF8Key(slice)] = 1
        #expect(targets[UTF8Key("http://h/a.html")] == 1)
        #expect(targets[UTF8Key("http://h/a.htm")] == nil)
        #expect(targets[UTF8Key("http://h/a.html#")] == nil)
        #expect(UTF8Key("") == UTF8Key(page[page.endIndex...]))
    }
}
