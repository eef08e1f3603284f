/// UTF-8 text collected in pieces with HTML's white space (space, tab, LF, FF, CR) collapsed as
/// it comes: a run of it becomes one space, none at the start or the end. It holds a page's
/// body text during the crawl's parse, so it writes through a pointer into memory of its own,
/// where appending to an `Array` piece by piece cost more than libxml2's parse of the text.
final class CollapsedText {
    // Touched for every piece of text of every page, by the one parse that owns it: the
    // runtime's exclusivity checks are left out.
    @exclusivity(unchecked) private var bytes: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var capacity: Int
    /// The bytes collected so far.
    @exclusivity(unchecked) private(set) var count = 0
    /// Whether a space is due before the next word.
    @exclusivity(unchecked) private var space = false

    init(capacity: Int = 4096) {
        self.capacity = max(capacity, 1)
        bytes = .allocate(capacity: self.capacity)
    }

    deinit {
        bytes.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    /// Appends `text`, collapsing its white space with what came before.
    func append(_ text: UnsafeBufferPointer<UInt8>) {
        reserve(count + text.count + 1)
        let bytes = self.bytes
        var end = count
        var space = self.space
        for byte in text {
            if byte > 0x20 || !(byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D) {
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
