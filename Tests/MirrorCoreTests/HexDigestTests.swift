import Foundation
import MirrorCore
import Testing

/// A digest's text comes back exactly, held as 32 bytes or, when it is not a SHA-256's lower-case
/// hex, as the text itself; two are equal exactly when their texts are.
@Suite("Hex digests")
struct HexDigestTests {
    static let texts = [
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        String(repeating: "0", count: 64), String(repeating: "f", count: 64),
        "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855",  // upper case: kept as text
        String(repeating: "a", count: 63), String(repeating: "a", count: 65), "", "not a digest",
        String(repeating: "g", count: 64), String(repeating: "é", count: 32),
        // One digit out of range at the end of each word.
        String(repeating: "0", count: 15) + "g" + String(repeating: "0", count: 48),
        String(repeating: "0", count: 31) + "/" + String(repeating: "0", count: 32),
        String(repeating: "0", count: 47) + ":" + String(repeating: "0", count: 16),
        String(repeating: "0", count: 63) + "`",
        // A bridged string, read through a copy of its bytes.
        String(NSString(string: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")),
    ]

    @Test(arguments: texts) func textRoundTrips(text: String) {
        let digest = HexDigest(text)
        #expect(digest.text == text)
        #expect(digest.description == text)
        #expect(digest.isEmpty == text.isEmpty)
    }

    @Test func orderedAsTheirTexts() {
        for a in Self.texts {
            for b in Self.texts {
                #expect((HexDigest(a) < HexDigest(b)) == a.utf8.lexicographicallyPrecedes(b.utf8), "\(a) \(b)")
            }
        }
    }

    @Test func equalExactlyWhenTheTextsAre() {
        for a in Self.texts {
            for b in Self.texts {
                #expect((HexDigest(a) == HexDigest(b)) == (a == b), "\(a) \(b)")
                if a == b { #expect(HexDigest(a).hashValue == HexDigest(b).hashValue) }
            }
        }
    }
}

/// `Hex.string` writes two lower-case digits a byte, whatever sequence holds the bytes, and
/// `Hex.bytes` reads them back.
@Suite("Hex text")
struct HexTextTests {
    static let everyByte = (0...255).map { UInt8($0) }
    static let expected = everyByte.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()

    @Test func everyByteValueFromAnArray() {
        #expect(Hex.string(Self.everyByte) == Self.expected)
        #expect(Hex.bytes(Hex.string(Self.everyByte)) == Self.everyByte)
    }

    @Test func everyByteValueFromASequenceWithoutContiguousStorage() {
        #expect(Hex.string(Self.everyByte.lazy.map { $0 }) == Self.expected)
        #expect(Hex.string(stride(from: 0, through: 255, by: 1).lazy.map { UInt8($0) }) == Self.expected)
    }

    @Test func noBytesMakeNoText() {
        #expect(Hex.string([UInt8]()) == "")
        #expect(Hex.string(EmptyCollection<UInt8>()) == "")
    }
}
