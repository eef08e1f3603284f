/// A digest's lower-case hex text (a SHA-256 in a manifest or a path registry), held as its 32
/// bytes when it is one: a manifest in memory and a crawl's path registry keep one per URL, and
/// as strings (a heap object of 96 bytes each) they were 22 MB of a crawl's peak at 100,000 pages. Any other text (an
/// empty digest, a manifest's malformed one) is kept as it is, so the text always round-trips.
public struct HexDigest: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Any other text, in a box: 40 bytes in all, words and one optional reference.
    private final class Text: Sendable {
        let text: String
        init(_ text: String) { self.text = text }
    }

    /// The digest's bytes as four big-endian words; zero when `other` holds the text.
    private let words: (UInt64, UInt64, UInt64, UInt64)
    private let other: Text?

    public init(_ text: String) {
        if let words = Self.words(of: text) {
            self.words = words
            other = nil
        } else {
            words = (0, 0, 0, 0)
            other = Text(text)
        }
    }

    /// The digest of 32 bytes, as `Hex.string` would spell them.
    public init(bytes: some Collection<UInt8>) {
        precondition(bytes.count == 32, "a digest has 32 bytes")
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &words) { _ = $0.copyBytes(from: bytes) }
        self.words = (UInt64(bigEndian: words.0), UInt64(bigEndian: words.1), UInt64(bigEndian: words.2), UInt64(bigEndian: words.3))
        other = nil
    }

    /// The digest's 32 bytes; nil when it holds other text.
    public var bytes: [UInt8]? {
        guard other == nil else { return nil }
        return withUnsafeBytes(of: bigEndianWords) { Array($0) }
    }

    public var text: String {
        if let other { return other.text }
        return withUnsafeBytes(of: bigEndianWords) { Hex.string($0) }
    }

    /// The words in memory in the digest's byte order.
    private var bigEndianWords: (UInt64, UInt64, UInt64, UInt64) {
        (words.0.bigEndian, words.1.bigEndian, words.2.bigEndian, words.3.bigEndian)
    }

    public var description: String { text }

    public var isEmpty: Bool { other?.text.isEmpty ?? false }

    /// The digest's first 8 bytes as a number; nil when it holds other text.
    public var leadingWord: UInt64? { other == nil ? words.0 : nil }

    public static func == (lhs: HexDigest, rhs: HexDigest) -> Bool {
        switch (lhs.other, rhs.other) {
        case (nil, nil): return lhs.words == rhs.words
        case let (a?, b?): return a.text == b.text
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        if let other {
            hasher.combine(other.text)
        } else {
            hasher.combine(words.0)
            hasher.combine(words.1)
            hasher.combine(words.2)
            hasher.combine(words.3)
        }
    }

    /// Digests in the order of their texts' bytes.
    public static func < (lhs: HexDigest, rhs: HexDigest) -> Bool {
        if lhs.other == nil && rhs.other == nil { return lhs.words < rhs.words }
        return lhs.text.bytesPrecede(rhs.text)
    }

    /// The four big-endian words of 64 lower-case hex digits; nil for any other text. Read in
    /// place, a word at a time: every resource a crawl's journal reads back makes one.
    private static func words(of text: String) -> (UInt64, UInt64, UInt64, UInt64)? {
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.count == 64 else { return nil }
            func word(at start: Int) -> UInt64? {
                var word: UInt64 = 0
                for offset in start..<start + 16 {
                    // A digit or a letter by one subtraction each: every resource read back makes one.
                    let digit = bytes[offset] &- UInt8(ascii: "0")
                    let letter = bytes[offset] &- UInt8(ascii: "a")
                    guard digit < 10 || letter < 6 else { return nil }
                    word = word << 4 | UInt64(digit < 10 ? digit : letter + 10)
                }
                return word
            }
            guard let first = word(at: 0), let second = word(at: 16), let third = word(at: 32), let fourth = word(at: 48) else {
                return nil
            }
            return (first, second, third, fourth)
        }
    }
}
