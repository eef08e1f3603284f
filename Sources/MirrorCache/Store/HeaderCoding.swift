public import NIOHTTP1

/// Headers as text, one `Name: value` per line, order and repeats kept. HTTP field values
/// cannot contain CR or LF, so a line break is a safe separator.
public enum HeaderCoding {
    public static func encode(_ headers: HTTPHeaders) -> String {
        // Written into one string of its final size: every stored response is encoded.
        var text = ""
        text.reserveCapacity(headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 3 })
        for (index, header) in headers.enumerated() {
            if index > 0 { text += "\n" }
            text += header.name
            text += ": "
            text += header.value
        }
        return text
    }

    public static func decode(_ text: String) -> HTTPHeaders {
        var headers = HTTPHeaders()
        // By bytes: a value ending in CR would make one `Character` with the line feed after it,
        // and a mark after `:` or a space one with them.
        for line in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let value = line[line.index(after: colon)...].drop { $0 == UInt8(ascii: " ") }
            headers.add(name: String(Substring(line[..<colon])), value: String(Substring(value)))
        }
        return headers
    }
}
