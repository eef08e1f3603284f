extension String {
    /// The parts between each `separator` (an ASCII byte), empty ones kept: the
    /// `split(separator:omittingEmptySubsequences: false)` of the UTF-8 bytes, found in one pass
    /// over them. By bytes, as URL parsers cut: a mark after the separator makes one `Character`
    /// with it, which a split on `Character`s would not cut at.
    public func parts(separatedBy separator: UInt8) -> [Substring] {
        precondition(separator < 0x80, "the separator must be an ASCII byte")
        var text = self
        var ends: [Int] = []
        text.withUTF8 { bytes in
            for offset in bytes.indices where bytes[offset] == separator { ends.append(offset) }
        }
        var parts: [Substring] = []
        parts.reserveCapacity(ends.count + 1)
        var start = utf8.startIndex
        for offset in ends {
            let end = utf8.index(utf8.startIndex, offsetBy: offset)
            parts.append(Substring(utf8[start..<end]))
            start = utf8.index(after: end)
        }
        parts.append(Substring(utf8[start...]))
        return parts
    }
}
