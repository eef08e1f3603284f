#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Byte-level helpers of the HTML parsing.
extension UnsafeBufferPointer<UInt8> {
    /// The UTF-8 of `text`.
    init(_ text: StaticString) {
        self.init(start: text.utf8Start, count: text.utf8CodeUnitCount)
    }

    /// Whether these bytes are exactly the UTF-8 of `text`.
    func spells(_ text: StaticString) -> Bool {
        guard count == text.utf8CodeUnitCount else { return false }
        let expected = text.utf8Start
        for index in 0..<count where self[index] != expected[index] { return false }
        return true
    }

    /// The bytes as a String (invalid UTF-8 repaired).
    var string: String { String(decoding: self, as: UTF8.self) }

    /// The index of the first `byte` at or after `start` (memchr: many times a loop's speed).
    func firstIndex(of byte: UInt8, from start: Int) -> Int? {
        guard start < count, let base = baseAddress, let found = memchr(base + start, Int32(byte), count - start) else {
            return nil
        }
        return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
    }
}
