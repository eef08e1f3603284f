extension StringProtocol where SubSequence == Substring {
    /// Without leading and trailing spaces and tabs (HTTP's optional whitespace). By bytes: a
    /// mark after a space makes one `Character` with it, which is no space, and the space stayed.
    public func trimmingASCIIWhitespace() -> Substring {
        let text = self[...]
        let bytes = text.utf8
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else {
            return text[text.endIndex...]
        }
        return Substring(text.unicodeScalars[first...last])
    }
}
