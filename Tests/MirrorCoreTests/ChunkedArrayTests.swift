import MirrorCore
import Testing

@Suite("Chunked arrays")
struct ChunkedArrayTests {
    /// Across chunk boundaries, elements read back as appended and as set.
    @Test func holdsWhatWasAppendedAndSet() {
        var array = ChunkedArray<Int>()
        #expect(array.startIndex == 0 && array.endIndex == 0)
        for number in 0..<5000 { array.append(number * 3) }
        #expect(array.endIndex == 5000)
        #expect((0..<5000).allSatisfy { array[$0] == $0 * 3 })
        for index in stride(from: 0, to: 5000, by: 7) { array[index] = -index }
        #expect((0..<5000).allSatisfy { array[$0] == ($0.isMultiple(of: 7) ? -$0 : $0 * 3) })
    }

    /// Read as a queue: whole chunks before the head are let go, the rest stays, and indexes
    /// go on counting.
    @Test func letsGoOfWholeChunksBeforeAnIndex() {
        var array = ChunkedArray<String>()
        for number in 0..<3000 { array.append("\(number)") }
        array.removeChunks(before: 1000)
        #expect(array.startIndex == 0)  // the first chunk holds 1,024
        array.removeChunks(before: 2500)
        #expect(array.startIndex == 2048)
        #expect((2048..<3000).allSatisfy { array[$0] == "\($0)" })
        array.removeChunks(before: 3000)
        #expect(array.startIndex == 2048)  // the last chunk is not full: it stays
        for number in 3000..<4200 { array.append("\(number)") }
        array.removeChunks(before: 4200)
        #expect(array.startIndex == 4096)
        #expect(array[4199] == "4199" && array.endIndex == 4200)
    }
}
