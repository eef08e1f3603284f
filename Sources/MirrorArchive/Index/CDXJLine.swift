import MirrorCore

/// One line of a CDXJ index as `cdxj-indexer` writes it: the SURT key, the 14-digit timestamp,
/// and a JSON object with the fields in its order (`url`, `mime`, `status`, `digest`, `length`,
/// `offset`, `filename`), every value a string, printed as Python's `json.dumps` prints it
/// (`", "` and `": "` separators, non-ASCII escaped), so that the lines compare byte for byte.
struct CDXJLine {
    var url: String
    var date: WARCDate
    /// The media type without parameters (`text/html`), or `warc/revisit`; nil when unknown.
    var mime: String?
    var status: Int
    var digest: String
    /// The record's gzip member: its length and offset in the WARC.
    var length: Int
    var offset: Int
    var filename: String

    var text: String {
        var fields: [(String, String)] = [("url", url)]
        if let mime { fields.append(("mime", mime)) }
        fields += [
            ("status", String(status)), ("digest", digest), ("length", String(length)),
            ("offset", String(offset)), ("filename", filename),
        ]
        let object = fields.map { "\(Self.quoted($0.0)): \(Self.quoted($0.1))" }.joined(separator: ", ")
        return "\(SURT.key(url)) \(date.timestamp) {\(object)}"
    }

    /// The media type of a `Content-Type` value as `cdxj-indexer` cuts it: up to the first `;`
    /// or white space.
    static func mime(contentType: String) -> String {
        String(contentType.prefix { $0 != ";" && !$0.isWhitespace }.trimmingASCIIWhitespace())
    }

    /// `text` as a JSON string the way Python's `json.dumps` writes it (with `ensure_ascii`).
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{08}": result += "\\b"
            case "\u{0C}": result += "\\f"
            case " "..."~": result.unicodeScalars.append(scalar)
            default:
                if scalar.value > 0xFFFF {
                    let value = scalar.value - 0x10000
                    result += escape(0xD800 + (value >> 10)) + escape(0xDC00 + (value & 0x3FF))
                } else {
                    result += escape(scalar.value)
                }
            }
        }
        return result + "\""
    }

    private static func escape(_ value: UInt32) -> String {
        let hex = String(value, radix: 16)
        return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }
}
