/// A digest's lower-case hex text (a SHA-256 in a manifest or a path registry), held as its 32
/// bytes when it is one: a crawl keeps two per URL until it finishes, and as strings (a heap
/// object of 96 bytes each) they were 22 MB of its peak at 100,000 pages. Any other text (an
/// empty digest, a manifest's malformed one) is kept as it is, so the text always round-trips.
public struct HexDigest: Hashable, Comparable, Sendable, CustomStringConvertible {
    private enum Storage: Hashable {
        case sha256(UInt64, UInt64, UInt64, UInt64)
        case text(String)
    }

    private let storage: Storage

    public init(_ text: String) {
        storage = Self.words(of: text).map { .sha256($0[0], $0[1], $0[2], $0[3]) } ?? .text(text)
    }

    public var text: String {
        switch storage {
        case .text(let text): return text
        case .sha256(let a, let b, let c, let d):
            return String(unsafeUninitializedCapacity: 64) { buffer in
                var index = 0
                for word in [a, b, c, d] {
                    for shift in stride(from: 60, through: 0, by: -4) {
                        buffer[index] = Self.digits[Int((word >> UInt64(shift)) & 0xf)]
                        index += 1
                    }
                }
                return 64
            }
        }
    }

    public var description: String { text }

    /// Digests in the order of their texts' bytes.
    public static func < (lhs: HexDigest, rhs: HexDigest) -> Bool {
        switch (lhs.storage, rhs.storage) {
        case let (.sha256(a0, a1, a2, a3), .sha256(b0, b1, b2, b3)): return (a0, a1, a2, a3) < (b0, b1, b2, b3)
        default: return lhs.text.utf8.lexicographicallyPrecedes(rhs.text.utf8)
        }
    }

    public var isEmpty: Bool { storage == .text("") }

    private static let digits = Array("0123456789abcdef".utf8)

    /// The four big-endian words of 64 lower-case hex digits; nil for any other text.
    private static func words(of text: String) -> [UInt64]? {
        guard text.utf8.count == 64 else { return nil }
        var words = [UInt64](repeating: 0, count: 4)
        for (index, byte) in text.utf8.enumerated() {
            let value: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = byte - UInt8(ascii: "a") + 10
            default: return nil
            }
            words[index / 16] = words[index / 16] << 4 | UInt64(value)
        }
        return words
    }
}
