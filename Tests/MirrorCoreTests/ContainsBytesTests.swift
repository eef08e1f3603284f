import MirrorCore
import Testing

@Suite("Byte-for-byte substring search")
struct ContainsBytesTests {
    @Test func findsWhatIsThereAndNothingElse() {
        #expect("text/html; charset=utf-8".containsBytes("text/html"))
        #expect("application/xhtml+xml".containsBytes("xhtml"))
        #expect("xx-html".containsBytes("html"))  // at the very end
        #expect("html".containsBytes("html"))
        #expect("anything".containsBytes(""))
        #expect("".containsBytes(""))
        #expect(!"".containsBytes("h"))
        #expect(!"text/htm".containsBytes("text/html"))
        #expect(!"tteexxtt".containsBytes("text"))
        #expect(!"TEXT/HTML".containsBytes("text/html"))  // bytes, not case-folded
        #expect("ünïcode/html".containsBytes("ï"))
        #expect(!"e\u{301}".containsBytes("é"))  // bytes, not canonical equivalence
    }
}
