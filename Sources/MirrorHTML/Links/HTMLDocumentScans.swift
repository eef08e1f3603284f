extension Range<Int> {
    func shifted(by offset: Int) -> Range<Int> { lowerBound + offset..<upperBound + offset }
}

/// The byte scans `HTMLReferenceLocator` reads its document with.
extension [UInt8] {
    /// The first `byte` at or after `start`.
    func index(of byte: UInt8, from start: Int) -> Int? {
        withUnsafeBufferPointer { $0.firstIndex(of: byte, from: start) }
    }

    /// The first `text` at or after `start`.
    func index(of text: StaticString, from start: Int) -> Int? {
        let needle = UnsafeBufferPointer(text)
        var index = start
        while let candidate = self.index(of: needle[0], from: index) {
            guard candidate + needle.count <= count else { return nil }
            if self[candidate..<candidate + needle.count].elementsEqual(needle) { return candidate }
            index = candidate + 1
        }
        return nil
    }

    /// `range` up to its first NUL byte: libxml2 ends a value there (and stops reading the
    /// document), so only what precedes it is the link, and the NUL stays where it is.
    func beforeNUL(_ range: Range<Int>) -> Range<Int> {
        range.lowerBound..<(self[range].firstIndex(of: 0) ?? range.upperBound)
    }

    /// Where a comment whose text starts at `start` ends: after the first `-->` or `--!>`, as
    /// libxml2 (and HTML5) end it; the end of the document when neither is there.
    func endOfComment(after start: Int) -> Int {
        var index = start
        while let dashes = self.index(of: "--", from: index) {
            if matches("-->", at: dashes) { return dashes + 3 }
            if matches("--!>", at: dashes) { return dashes + 4 }
            index = dashes + 1
        }
        return count
    }

    func matches(_ text: StaticString, at position: Int) -> Bool {
        let bytes = UnsafeBufferPointer(text)
        return position + bytes.count <= count && self[position..<position + bytes.count].elementsEqual(bytes)
    }

    /// Whether the bytes at `position` are `name` (ASCII case-insensitive) followed by the end
    /// of a tag name as libxml2 reads it: any byte but a letter, a digit, `:`, `-`, `_` or `.`
    /// (`<a'`, `<link&#0;` and `<a<!` are tags `a` and `link` to it).
    func startsTag(_ name: UnsafeBufferPointer<UInt8>, at position: Int) -> Bool {
        var index = position
        for byte in name {
            guard index < count, self[index] | (byte >= 0x61 && byte <= 0x7A ? 0x20 : 0) == byte else { return false }
            index += 1
        }
        guard index < count else { return true }
        let next = self[index]
        let isNameByte =
            ((next | 0x20) >= UInt8(ascii: "a") && (next | 0x20) <= UInt8(ascii: "z"))
            || (next >= UInt8(ascii: "0") && next <= UInt8(ascii: "9"))
            || next == UInt8(ascii: ":") || next == UInt8(ascii: "-") || next == UInt8(ascii: "_") || next == UInt8(ascii: ".")
        return !isNameByte
    }

    /// Where the closing tag of a raw-text element whose start tag ends at `tagEnd` starts (or the end).
    func endOfRawText(_ element: UnsafeBufferPointer<UInt8>, after tagEnd: Int) -> Int {
        var index = tagEnd
        while let candidate = self.index(of: UInt8(ascii: "<"), from: index) {
            let nameEnd = candidate + 2 + element.count
            guard nameEnd <= count else { break }
            if self[candidate + 1] | 0x20 == UInt8(ascii: "/"),
                zip(self[(candidate + 2)..<nameEnd], element).allSatisfy({ $0 | 0x20 == $1 | 0x20 })
            {
                return candidate
            }
            index = candidate + 1
        }
        return count
    }
}
