/// An array held in chunks of 1,024 elements. Appending never copies what is held, where an
/// array that doubles holds its old and new buffers at once (at 100,000 URLs, 19 MB for a table
/// of 9 MB); and a queue read from the front lets go of each chunk once it has read past it.
public struct ChunkedArray<Element> {
    private static var chunkShift: Int { 10 }
    private static var chunkSize: Int { 1 << chunkShift }

    private var chunks: [[Element]] = []
    /// Chunks let go of at the front (`removeChunks(before:)`), emptied in place.
    private var dropped = 0

    /// One past the last index; indexes keep counting from the first element ever appended.
    public private(set) var endIndex = 0

    public init() {}

    /// The first index still held.
    public var startIndex: Int { min(dropped << Self.chunkShift, endIndex) }

    /// Appends `element` at `endIndex`.
    public mutating func append(_ element: Element) {
        if endIndex & (Self.chunkSize - 1) == 0 {
            chunks.append([])
            chunks[chunks.count - 1].reserveCapacity(Self.chunkSize)
        }
        chunks[chunks.count - 1].append(element)
        endIndex += 1
    }

    public subscript(index: Int) -> Element {
        get {
            precondition(index >= startIndex && index < endIndex, "index \(index) out of \(startIndex)..<\(endIndex)")
            return chunks[index >> Self.chunkShift][index & (Self.chunkSize - 1)]
        }
        set {
            precondition(index >= startIndex && index < endIndex, "index \(index) out of \(startIndex)..<\(endIndex)")
            chunks[index >> Self.chunkShift][index & (Self.chunkSize - 1)] = newValue
        }
    }

    /// Lets go of the elements before `index` (in whole chunks: some may stay held).
    public mutating func removeChunks(before index: Int) {
        let through = min(index, endIndex) >> Self.chunkShift
        while dropped < through {
            chunks[dropped] = []
            dropped += 1
        }
    }
}

extension ChunkedArray: Sendable where Element: Sendable {}
