/// Decides the character set of an HTML document before it is parsed.
public enum CharsetSniffer {
    /// The charset label to decode the document with, lower-cased.
    ///
    /// In order: the `charset` parameter of the HTTP `Content-Type`, a byte order mark, a
    /// `<meta charset>` or `<meta http-equiv="Content-Type" content="…; charset=…">` in the first
    /// 1024 bytes (the HTML spec's prescan; UTF-8 when it names UTF-16 or UTF-32), else "utf-8".
    /// Latin-1 and ASCII labels become "windows-1252", as browsers read them, when libxml2 knows
    /// that encoding.
    /// - Parameters:
    ///   - contentType: the HTTP `Content-Type` header, if any.
    ///   - prefix: the first bytes of the body (at least 1024 when the body is that long).
    public static func charset(contentType: String?, prefix: [UInt8]) -> String {
        if let contentType, let label = charsetParameter(of: contentType) { return normalized(label) }
        if prefix.starts(with: [0xEF, 0xBB, 0xBF]) { return "utf-8" }
        if prefix.starts(with: [0xFF, 0xFE]) { return "utf-16le" }
        if prefix.starts(with: [0xFE, 0xFF]) { return "utf-16be" }
        var prescan = MetaPrescan(bytes: prefix.prefix(1024))
        if let label = prescan.charset() {
            // A meta tag found by reading ASCII bytes cannot describe a document whose ASCII
            // characters are not single bytes (UTF-16, UTF-32): the HTML spec reads it as UTF-8.
            let charset = normalized(label)
            return isASCIICompatible(charset) ? charset : "utf-8"
        }
        return "utf-8"
    }

    /// Whether ASCII characters are single ASCII bytes in `charset` (not so in UTF-16 and
    /// UTF-32): the byte scanners that locate and rewrite references need it. Compared byte by
    /// byte, without a lower-cased copy: it runs for every page rewritten.
    public static func isASCIICompatible(_ charset: String) -> Bool {
        !["utf-16", "utf-32", "ucs-"].contains { prefix in
            charset.utf8.count >= prefix.utf8.count && zip(charset.utf8, prefix.utf8).allSatisfy { $0.asciiLowercased == $1 }
        }
    }

    /// The `charset` parameter of a media type, unquoted, or nil. Read scalar by scalar: a
    /// combining mark after `;`, `=` or a quote would make one `Character` with it.
    static func charsetParameter(of contentType: String) -> String? {
        for parameter in contentType.unicodeScalars.split(separator: ";").dropFirst() {
            guard let equals = parameter.firstIndex(of: "=") else { continue }
            let name = parameter[..<equals].trimmingWhitespace()
            guard String(String.UnicodeScalarView(name)).lowercased() == "charset" else { continue }
            var value = parameter[parameter.index(after: equals)...].trimmingWhitespace()
            if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
            return value.allSatisfy(\.isASCIIWhitespace) ? nil : String(String.UnicodeScalarView(value))
        }
        return nil
    }

    private static let windows1252Labels: Set<String> = [
        "iso-8859-1", "iso8859-1", "iso_8859-1", "iso88591", "latin1", "l1", "us-ascii", "ascii",
        "cp1252", "x-cp1252", "cp819", "ibm819", "csisolatin1",
    ]

    /// libxml2 built without iconv has no windows-1252; then Latin-1 labels are kept as they are.
    private static let knowsWindows1252 = HTMLSAXParser.supportsEncoding("windows-1252")

    private static func normalized(_ label: String) -> String {
        // Most labels are kept as they come ("utf-8"): ASCII without capitals or white space,
        // which trimming and lower-casing would copy unchanged, at every page.
        let isKept = label.utf8.allSatisfy { $0 < 0x80 && $0.asciiLowercased == $0 && !ExtractedLink.isASCIIWhitespace($0) }
        let label = isKept ? label : String(String.UnicodeScalarView(label.unicodeScalars[...].trimmingWhitespace())).lowercased()
        return windows1252Labels.contains(label) && knowsWindows1252 ? "windows-1252" : label
    }
}

extension Unicode.Scalar {
    /// The white space the Encoding standard trims around a label, HTML's ASCII white space
    /// (`ExtractedLink.isASCIIWhitespace`): a no-break space is part of the label, which is then
    /// unknown.
    fileprivate var isASCIIWhitespace: Bool {
        isASCII && ExtractedLink.isASCIIWhitespace(UInt8(value))
    }
}

extension Substring.UnicodeScalarView {
    /// Without the ASCII white space at either end, scalar by scalar.
    fileprivate func trimmingWhitespace() -> Substring.UnicodeScalarView {
        guard let first = firstIndex(where: { !$0.isASCIIWhitespace }), let last = lastIndex(where: { !$0.isASCIIWhitespace })
        else { return self[endIndex...] }
        return self[first...last]
    }
}
