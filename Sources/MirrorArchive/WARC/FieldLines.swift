import MirrorCore

/// The lines of a WARC or HTTP header block: a first line, then `Name: value` fields, where a
/// line starting with a space or tab continues the value before it (obsolete line folding).
/// Lines end with CRLF or LF; lines without a colon are ignored.
struct FieldLines {
    let firstLine: Substring
    let fields: [(name: String, value: String)]

    init?(_ bytes: ArraySlice<UInt8>) {
        // Split on bytes: in a Swift String, CRLF is one Character.
        let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
            Substring(String(decoding: line.last == 0x0D ? line.dropLast() : line, as: UTF8.self))
        }
        guard let first = lines.first else { return nil }
        var fields: [(name: String, value: String)] = []
        for line in lines.dropFirst() where !line.isEmpty {
            if line.first == " " || line.first == "\t", let last = fields.popLast() {
                // One space between the parts, none beside an empty one: the value reads back the same once written on one line.
                let parts = [last.value, String(line.trimmingASCIIWhitespace())].filter { !$0.isEmpty }
                fields.append((last.name, parts.joined(separator: " ")))
            } else if let colon = line.firstIndex(of: ":") {
                fields.append(
                    (String(line[..<colon].trimmingASCIIWhitespace()), String(line[line.index(after: colon)...].trimmingASCIIWhitespace())))
            }
        }
        firstLine = first
        self.fields = fields
    }
}
