#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Text as a set member or dictionary key by its UTF-8 bytes: `String`'s `==` is canonical
/// equivalence (two spellings of `é` are equal), where two URLs, file names or host names are
/// not. Its bytes are hashed at once and compared with `memcmp`, where an `[UInt8]` key must be
/// allocated and is hashed a byte at a time.
public struct UTF8Key: Hashable, Sendable {
    public let text: Substring

    public init(_ text: Substring) { self.text = text }
    public init(_ text: String) { self.text = text[...] }

    public static func == (left: UTF8Key, right: UTF8Key) -> Bool {
        let (left, right) = (left.text.utf8, right.text.utf8)
        guard left.count == right.count else { return false }
        let compared = left.withContiguousStorageIfAvailable { left in
            right.withContiguousStorageIfAvailable { right in
                left.isEmpty || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0
            }
        }
        return (compared ?? nil) ?? left.elementsEqual(right)
    }

    public func hash(into hasher: inout Hasher) {
        // The same bytes hash the same whether or not they are stored contiguously.
        let hashed: Void? = text.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil { Array(text.utf8).withUnsafeBytes { hasher.combine(bytes: $0) } }
    }
}
