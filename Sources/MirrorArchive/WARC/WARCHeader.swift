/// A WARC record's header: the version line and named fields in order (WARC 1.1 §4).
public struct WARCHeader: Sendable {
    public var version: String
    public private(set) var fields: [(name: String, value: String)]

    public init(version: String = "WARC/1.1", fields: [(name: String, value: String)] = []) {
        self.version = version
        self.fields = fields
    }

    /// The first value of the field `name` (case-insensitive).
    public subscript(_ name: String) -> String? {
        let lowered = name.lowercased()
        return fields.first { $0.name.lowercased() == lowered }?.value
    }

    public mutating func append(_ name: String, _ value: String) {
        fields.append((name, value))
    }

    /// `WARC-Type`, lower-cased.
    public var type: String { self["WARC-Type"]?.lowercased() ?? "" }

    /// `WARC-Target-URI`, without the angle brackets some writers put around it.
    public var targetURI: String? {
        guard let uri = self["WARC-Target-URI"] else { return nil }
        return uri.hasPrefix("<") && uri.hasSuffix(">") ? String(uri.dropFirst().dropLast()) : uri
    }

    /// The header's bytes with `Content-Length: length` last, and the blank line that ends it.
    func serialized(contentLength length: Int) -> [UInt8] {
        var text = version + "\r\n"
        for (name, value) in fields { text += "\(name): \(value)\r\n" }
        text += "Content-Length: \(length)\r\n\r\n"
        return Array(text.utf8)
    }

    /// Parses a header (its bytes up to, not including, the blank line); nil when it does not
    /// start with a `WARC/` version line.
    static func parse(_ bytes: ArraySlice<UInt8>) -> WARCHeader? {
        guard let lines = FieldLines(bytes), lines.firstLine.hasPrefix("WARC/") else { return nil }
        return WARCHeader(version: String(lines.firstLine), fields: lines.fields)
    }
}
