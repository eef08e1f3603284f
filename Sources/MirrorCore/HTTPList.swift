/// The members of HTTP list fields (`Vary`, `Connection`, `Via`, `Transfer-Encoding`, `Age`):
/// every value cut at its commas and trimmed of spaces and tabs, empty members left out (RFC 9110
/// §5.6.1). By bytes: NIO's `canonicalForm` cuts on `Character`s, and a mark after a member
/// (`x\u{600}, X-Secret`) made one `Character` with the comma, so the next member went unseen.
public enum HTTPList {
    public static func members(_ values: [String]) -> [Substring] {
        values.flatMap { value in
            value.utf8.split(separator: UInt8(ascii: ",")).map { Substring($0).trimmingASCIIWhitespace() }.filter { !$0.isEmpty }
        }
    }
}
