import MirrorCore

/// The lines of a WARC or HTTP header block: a first line, then `Name: value` fields, where a
/// line starting with a space or tab continues the value before it (obsolete line folding).
/// Lines end with CRLF or LF; lines without a colon are ignored.
struct FieldLines {
    let firstLine: Substring
    let fields: [(name: String, value: String)]

    init?(_ bytes: ArraySlice<UInt8>) {
        // Split and cut on bytes: in a Swift String, CRLF is one Character, and a mark after a
        // space or `:` makes one with it.
        let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
            line.last == 0x0D ? line.dropLast() : line
        }
        guard let firstBytes = lines.first else { return nil }
        let first = Substring(String(decoding: firstBytes, as: UTF8.self))
        let text = { (bytes: ArraySlice<UInt8>) in String(String(decoding: bytes, as: UTF8.self).trimmingASCIIWhitespace()) }
        var fields: [(name: String, value: String)] = []
        for line in lines.dropFirst() where !line.isEmpty {
            if line.first == 0x20 || line.first == 0x09, let last = fields.popLast() {
                // One space between the parts, none beside an empty one: the value reads back the same once written on one line.
                let parts = [last.value, text(line)].filter { !$0.isEmpty }
                fields.append((last.name, parts.joined(separator: " ")))
            } else if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
                fields.append((text(line[..<colon]), text(line[(colon + 1)...])))
            }
        }
        firstLine = first
        self.fields = fields
    }
}
