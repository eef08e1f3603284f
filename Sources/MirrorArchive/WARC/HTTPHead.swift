import NIOHTTP1

/// The head of an HTTP/1.x message as a WARC record holds it: the request or status line, the
/// header fields, and the blank line.
struct HTTPHead {
    /// The status of a response; nil for a request.
    var status: Int?
    var headers: HTTPHeaders

    /// A response head: `HTTP/1.1 200 OK`, the fields, a blank line.
    static func response(status: Int, headers: HTTPHeaders) -> [UInt8] {
        let reason = HTTPResponseStatus(statusCode: status).reasonPhrase
        return serialize(firstLine: "HTTP/1.1 \(status) \(reason)", headers: headers)
    }

    /// A request head: `GET /path?query HTTP/1.1`, the fields, a blank line.
    static func request(target: String, headers: HTTPHeaders) -> [UInt8] {
        serialize(firstLine: "GET \(target) HTTP/1.1", headers: headers)
    }

    private static func serialize(firstLine: String, headers: HTTPHeaders) -> [UInt8] {
        var text = firstLine + "\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }

    /// Where the head in `bytes` ends (after its blank line), if it is complete.
    static func end(in bytes: [UInt8]) -> Int? {
        var index = 0
        while let newline = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) {
            let next = newline + 1
            if next < bytes.count, bytes[next] == UInt8(ascii: "\n") { return next + 1 }
            if next + 1 < bytes.count, bytes[next] == UInt8(ascii: "\r"), bytes[next + 1] == UInt8(ascii: "\n") {
                return next + 2
            }
            index = next
        }
        return nil
    }

    /// Parses a complete head; nil when its first line is neither a status line nor a request line.
    /// Fields whose names are not ASCII are left out.
    static func parse(_ bytes: ArraySlice<UInt8>) -> HTTPHead? {
        guard let lines = FieldLines(bytes) else { return nil }
        let parts = lines.firstLine.split(separator: " ", maxSplits: 2)
        var status: Int?
        if lines.firstLine.hasPrefix("HTTP/") {
            guard parts.count >= 2, let code = Int(parts[1]), (100...999).contains(code) else { return nil }
            status = code
        } else {
            guard parts.count == 3, parts[2].hasPrefix("HTTP/") else { return nil }
        }
        // A name that is not ASCII is no HTTP field name, and NIO traps on one when headers are
        // copied (`HTTPHeaders.add`): such a field is ignored, as a line without a colon is.
        let fields = lines.fields.filter { $0.name.utf8.allSatisfy { $0 < 0x80 } }
        return HTTPHead(status: status, headers: HTTPHeaders(fields.map { ($0.name, $0.value) }))
    }
}
