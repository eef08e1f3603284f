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
        guard !isFull, let source = text.baseAddress else { return }
        // A call adds at most a space and each byte of `text`.
        let most = count + text.count + 1
        reserve(min(most, limit))
        if most <= limit { appendWhole(source, count: text.count) } else { appendToLimit(text) }
    }

    /// `append` when all of the text fits. Runs of bytes above 0x20 (words, and UTF-8's
    /// multi-byte characters) are copied eight bytes at a time: each eight are stored whole, and
    /// the end moves past those before the first byte up to 0x20. A page's text is mostly such
    /// runs (a loop over single bytes costs about twenty instructions a byte).
    private func appendWhole(_ source: UnsafePointer<UInt8>, count length: Int) {
        let bytes = self.bytes
        var end = count
        var space = self.space
        var index = 0
        while index < length {
            let byte = source[index]
            if byte <= 0x20 && Self.isWhiteSpace(byte) {
                space = end > 0
                index += 1
                continue
            }
            if space {
                bytes[end] = 0x20
                end += 1
                space = false
            }
            if byte <= 0x20 {
                // A control character, kept as written.
                bytes[end] = byte
                end += 1
                index += 1
                continue
            }
            // A run of bytes above 0x20 starts here. Storing eight at `end` stays within the
            // capacity: at most one byte more than `index` has been added so far, and
            // `index + 8 <= length`, where the capacity holds `count + length + 1`.
            while index + 8 <= length {
                let word = UnsafeRawPointer(source + index).loadUnaligned(as: UInt64.self)
                UnsafeMutableRawPointer(bytes + end).storeBytes(of: word, as: UInt64.self)
                // The high bit of each byte below 0x21; the lowest one set is exact.
                let low = (word &- 0x2121_2121_2121_2121) & ~word & 0x8080_8080_8080_8080
                let taken = low == 0 ? 8 : low.trailingZeroBitCount >> 3
                end += taken
                index += taken
                if taken < 8 { break }
            }
            while index < length && source[index] > 0x20 {
                bytes[end] = source[index]
                end += 1
                index += 1
            }
        }
        count = end
        self.space = space
    }

    /// The bits of HTML's white space among the bytes up to 0x20: tab, LF, FF, CR and space.
    private static let whiteSpace: UInt64 = 1 << 0x09 | 1 << 0x0A | 1 << 0x0C | 1 << 0x0D | 1 << 0x20

    /// Whether `byte`, at most 0x20, is HTML's white space.
    private static func isWhiteSpace(_ byte: UInt8) -> Bool {
        whiteSpace &>> UInt64(byte) & 1 != 0
    }

    /// `append` when the text may reach the limit: it is cut before the first character that
    /// does not fit.
    private func appendToLimit(_ text: UnsafeBufferPointer<UInt8>) {
        let bytes = self.bytes
        var end = count
        var space = self.space
        for byte in text {
            if byte > 0x20 || !Self.isWhiteSpace(byte) {
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
