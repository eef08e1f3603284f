import MirrorTestSupport
import Testing

@testable import MirrorHTML

/// `CollapsedText` against what it promises, on random text (invalid UTF-8 too): the words of
/// everything appended (white space and `separate()` split them) joined by single spaces, and
/// past the limit, cut before the first character that does not fit, with no space at the end.
@Suite struct CollapsedTextTests {
    /// What `CollapsedText` should hold after `stream` (the pieces appended, a space for each
    /// `separate()`), at most `limit` bytes.
    private static func expected(_ stream: [UInt8], limit: Int) -> [UInt8] {
        let words = stream.split(whereSeparator: { [0x09, 0x0A, 0x0C, 0x0D, 0x20].contains($0) })
        let joined = Array(words.joined(separator: [0x20]))
        guard joined.count > limit else { return joined }
        // A space is written with the byte after it, so the first byte left out is the first past
        // the limit that is not a space, and no space ends the text.
        let next = joined[limit] == 0x20 ? limit + 1 : limit
        var end = joined[next - 1] == 0x20 ? next - 1 : next
        if joined[next] & 0xC0 == 0x80 {
            // The first byte that does not fit continues a character: the bytes written of it
            // go too (a lone continuation byte and its run with them), and a space before them.
            while end > 0, joined[end - 1] & 0xC0 == 0x80 { end -= 1 }
            if end > 0, joined[end - 1] >= 0xC0 { end -= 1 }
            if end > 0, joined[end - 1] == 0x20 { end -= 1 }
        }
        return Array(joined[..<end])
    }

    /// A byte of text: mostly letters, with white space, control characters, the bytes of
    /// UTF-8's longer characters and stray continuation bytes.
    private static func byte(_ generator: inout some RandomNumberGenerator) -> UInt8 {
        switch Int.random(in: 0..<10, using: &generator) {
        case 0..<5: UInt8.random(in: 0x61...0x7A, using: &generator)
        case 5, 6: [0x20, 0x20, 0x09, 0x0A, 0x0C, 0x0D][Int.random(in: 0..<6, using: &generator)]
        case 7: UInt8.random(in: 0x00...0x20, using: &generator)
        case 8: UInt8.random(in: 0xC2...0xF4, using: &generator)
        default: UInt8.random(in: 0x80...0xBF, using: &generator)
        }
    }

    @Test func randomTextInRandomPiecesCollapsesAsOneStringWould() {
        var generator = SeededGenerator(seed: 51)
        for round in 0..<4_000 {
            let limit = round % 4 == 0 ? Int.max : Int.random(in: 1...96, using: &generator)
            let text = CollapsedText(capacity: Int.random(in: 1...64, using: &generator), limit: limit)
            var stream: [UInt8] = []
            for _ in 0..<Int.random(in: 0...12, using: &generator) {
                if Int.random(in: 0..<5, using: &generator) == 0 {
                    text.separate()
                    stream.append(0x20)
                    continue
                }
                // Runs long enough for the eight-byte steps, and pieces of none or one byte.
                let length = Int.random(in: 0...40, using: &generator)
                let piece = (0..<length).map { _ in Self.byte(&generator) }
                piece.withUnsafeBufferPointer { text.append($0) }
                stream += piece
            }
            let expected = Self.expected(stream, limit: limit)
            #expect(text.count == expected.count, "round \(round), limit \(limit): \(stream)")
            #expect(text.string == String(decoding: expected, as: UTF8.self), "round \(round): \(stream)")
        }
    }

    @Test func aLongWordIsCopiedWholeAcrossItsEightByteSteps() {
        let text = CollapsedText(capacity: 1)
        let word = Array("  internationalization\u{E9}\u{1F600}-and-more  \t\nnext ".utf8)
        word.withUnsafeBufferPointer { text.append($0) }
        word.withUnsafeBufferPointer { text.append($0) }
        #expect(text.string == "internationalization\u{E9}\u{1F600}-and-more next internationalization\u{E9}\u{1F600}-and-more next")
    }
}
