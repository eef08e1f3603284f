public import NIOHTTP1

/// Headers as text, one `Name: value` per line, order and repeats kept. HTTP field values
/// cannot contain CR or LF, so a line break is a safe separator.
public enum HeaderCoding {
    public static func encode(_ headers: HTTPHeaders) -> String {
        headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }

    public static func decode(_ text: String) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].drop { $0 == " " }
            headers.add(name: String(line[..<colon]), value: String(value))
        }
        return headers
    }
}
