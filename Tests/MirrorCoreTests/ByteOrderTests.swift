import MirrorCore
import Testing

@Suite("Byte order of strings")
struct ByteOrderTests {
    @Test func ordersAsTheirUTF8Bytes() {
        let samples = [
            "", "a", "ab", "abc", "b", "B", "/", "http://x/p/1.html", "http://x/p/10.html", "http://x/p/1.htm",
            "é", "e\u{301}", "z", "\u{7F}", "ü", "日本", "a\u{0}b", "a\u{0}", String(repeating: "x", count: 40),
            String(repeating: "x", count: 40) + "y", "http://127.0.0.1:8615/p/12/12345.html",
        ]
        for left in samples {
            for right in samples {
                #expect(left.bytesPrecede(right) == left.utf8.lexicographicallyPrecedes(right.utf8), "\(left) < \(right)")
                #expect(left.bytesEqual(right) == left.utf8.elementsEqual(right.utf8), "\(left) = \(right)")
                let order = left.compareBytes(right)
                #expect((order < 0) == left.bytesPrecede(right) && (order > 0) == right.bytesPrecede(left))
            }
        }
    }

    @Test func tellsCanonicallyEquivalentSpellingsApart() {
        #expect("é" == "e\u{301}")  // what `==` says
        #expect(!"é".bytesEqual("e\u{301}"))
        #expect("e\u{301}".bytesPrecede("é"))  // 0x65 before 0xC3
    }

    @Test func sortsLikeTheGenericComparison() {
        var generator = SystemRandomNumberGenerator()
        let strings = (0..<2_000).map { _ in
            String(
                decoding: (0..<Int.random(in: 0...24, using: &generator)).map { _ in UInt8.random(in: 0x20...0x7A, using: &generator) },
                as: UTF8.self)
        }
        #expect(strings.sorted { $0.bytesPrecede($1) } == strings.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    }
}
