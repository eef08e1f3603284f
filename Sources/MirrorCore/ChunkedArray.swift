/// An array held in chunks of 1,024 elements. Appending never copies what is held, where an
/// array that doubles holds its old and new buffers at once (at 100,000 URLs, 19 MB for a table
/// of 9 MB); and a queue read from the front lets go of each chunk once it has read past it.
///
/// Inlinable, so that other modules' uses are specialised, and its subscript yields the element
/// in place: a generic copy of a whole element to read one of its fields was 1.5 % of a
/// 100,000-page crawl's CPU.
public struct ChunkedArray<Element> {
    @usableFromInline static var chunkShift: Int { 10 }
    @usableFromInline static var chunkSize: Int { 1 << chunkShift }

    @usableFromInline var chunks: [[Element]] = []
    /// Chunks let go of at the front (`removeChunks(before:)`), emptied in place.
    @usableFromInline var dropped = 0

    /// How many elements were ever appended.
    @usableFromInline var appended = 0

    /// One past the last index; indexes keep counting from the first element ever appended.
    @inlinable public var endIndex: Int { appended }

    @inlinable public init() {}

    /// The first index still held.
    @inlinable public var startIndex: Int { min(dropped << Self.chunkShift, endIndex) }

    /// Appends `element` at `endIndex`.
    @inlinable public mutating func append(_ element: Element) {
        if endIndex & (Self.chunkSize - 1) == 0 {
            chunks.append([])
            chunks[chunks.count - 1].reserveCapacity(Self.chunkSize)
        }
        chunks[chunks.count - 1].append(element)
        appended += 1
    }

    @inlinable public subscript(index: Int) -> Element {
        _read {
            precondition(index >= startIndex && index < endIndex, "index \(index) out of \(startIndex)..<\(endIndex)")
            yield chunks[index >> Self.chunkShift][index & (Self.chunkSize - 1)]
        }
        _modify {
            precondition(index >= startIndex && index < endIndex, "index \(index) out of \(startIndex)..<\(endIndex)")
            yield &chunks[index >> Self.chunkShift][index & (Self.chunkSize - 1)]
        }
    }

    /// Lets go of the elements before `index` (in whole chunks: some may stay held).
    @inlinable public mutating func removeChunks(before index: Int) {
        let through = min(index, endIndex) >> Self.chunkShift
        while dropped < through {
            chunks[dropped] = []
            dropped += 1
        }
    }
}

extension ChunkedArray: Sendable where Element: Sendable {}
