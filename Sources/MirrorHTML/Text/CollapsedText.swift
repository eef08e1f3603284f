/// UTF-8 text collected in pieces with HTML's white space (space, tab, LF, FF, CR) collapsed as
/// it comes: a run of it becomes one space, none at the start or the end. It holds a page's
/// body text during the crawl's parse, so it writes through a pointer into memory of its own,
/// where appending to an `Array` piece by piece cost more than libxml2's parse of the text.
///
/// It holds at most `limit` bytes: the text is cut before the first character that does not
/// fit (whole, so the cut leaves no broken character), and nothing is taken after the cut, so
/// what it holds is always the start of the whole text.
final class CollapsedText {
    /// The most bytes it holds.
    let limit: Int
    /// Whether text was cut at the limit: then nothing more is taken.
    @exclusivity(unchecked) private(set) var isFull = false
    // Touched for every piece of text of every page, by the one parse that owns it: the
    // runtime's exclusivity checks are left out.
    @exclusivity(unchecked) private var bytes: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var capacity: Int
    /// The bytes collected so far.
    @exclusivity(unchecked) private(set) var count = 0
    /// Whether a space is due before the next word.
    @exclusivity(unchecked) private var space = false

    init(capacity: Int = 4096, limit: Int = .max) {
        self.limit = limit
        self.capacity = max(min(capacity, limit), 1)
        bytes = .allocate(capacity: self.capacity)
    }

    deinit {
        bytes.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    /// Appends `text`, collapsing its white space with what came before, up to the limit.
    func append(_ text: UnsafeBufferPointer<UInt8>) {
        guard !isFull else { return }
        reserve(min(count + text.count + 1, limit))
        let bytes = self.bytes
        var end = count
        var space = self.space
        for byte in text {
            if byte > 0x20 || !(byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D) {
                if end + (space ? 2 : 1) > limit {
                    end = Self.cut(bytes, end: end, before: byte)
                    isFull = true
                    break
                }
                if space {
                    bytes[end] = 0x20
                    end += 1
                    space = false
                }
                bytes[end] = byte
                end += 1
            } else {
                space = end > 0
            }
        }
        count = end
        self.space = space
    }

    /// Where text ending at `end` is cut when `next` does not fit: before the character `next`
    /// continues (a continuation byte), and before the space that came before it.
    private static func cut(_ bytes: UnsafeMutablePointer<UInt8>, end: Int, before next: UInt8) -> Int {
        guard next & 0xC0 == 0x80 else { return end }
        var end = end
        while end > 0, bytes[end - 1] & 0xC0 == 0x80 { end -= 1 }
        if end > 0, bytes[end - 1] >= 0xC0 { end -= 1 }
        if end > 0, bytes[end - 1] == 0x20 { end -= 1 }
        return end
    }

    /// Separates what comes next from what came before, as white space does.
    func separate() {
        space = count > 0
    }

    /// The text collected.
    var string: String { String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self) }

    private func reserve(_ needed: Int) {
        guard needed > capacity else { return }
        let larger = max(needed, capacity * 2)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.update(from: bytes, count: count)
        bytes.deallocate()
        bytes = moved
        capacity = larger
    }
}
