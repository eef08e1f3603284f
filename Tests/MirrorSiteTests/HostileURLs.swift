import MirrorTestSupport

/// Random and hostile URLs for the property tests.
struct HostileURLs {
    var generator: SeededGenerator

    static let hosts = [
        "h", "H", "example.com", "EXAMPLE.com", "h:8080", "h:80", "h:443", "127.0.0.1:8080", "[::1]:8080",
        "con", "index.html", ".mirror", "a_8080", "a:8080", "ex%41mple.com", "xn--nxasmq6b.gr", "ünï.com",
        "user:pw@h", "h.",
    ]

    /// Pieces that have broken path mappers before.
    static let pieces = [
        "..", ".", "%2e", "%2E%2e", "%2f", "%2F", "%00", "%5C", "\\", "%", "%zz", "%C0%AE", "%C0%AF", "%FF",
        "%ED%A0%80", "%E2%80%AE", "%E2%80%8B", "%C2%A0", "%0A", "%09", "CON", "con", "Con.txt", "nul", "COM1",
        "lpt9", "conin$", "index", "index.html", "INDEX.HTML", "index.htm", "a", "A", "ä", "%C3%A4", "a%CC%88",
        "A%CC%88", "ß", "SS", "ss", "ı", "I", "i", "İ", "K", "k", "Å", "Å", "ﬁ", "fi", "ς", "σ", "Σ", ".html",
        ".HTML", ".css", ".js", ".png", ".txt", ".tar.gz", "~", "%7E", "@", "%40", ":", "%3A", "*", "%2A", ";",
        "%3B", "+", "%2B", "=", "&", " ", "%20", "  ", "#", "%23", "?", "%3F", "<", ">", "|", "\"", "^", "[", "]",
        "{", "}", "`", "'", "!", "$", "(", ")", ",", "😀", "%F0%9F%98%80", "한", "%E1%84%92%E1%85%A1%E1%86%AB",
        "日本", "x", "y", "docs", "v1.2", "_", "-", "%7F", "\u{7F}", "%C2%80", String(repeating: "z", count: 120),
        String(repeating: "é", count: 70), String(repeating: "%41", count: 90),
    ]

    static let contentTypes: [String?] = [
        nil, "text/html", "TEXT/HTML; charset=utf-8", "text/css", "application/javascript", "image/png",
        "image/jpeg", "text/plain", "application/octet-stream", "application/x-unknown", "", "font/woff2",
    ]

    mutating func pick<T>(_ items: [T]) -> T {
        items[Int.random(in: 0..<items.count, using: &generator)]
    }

    mutating func chance(_ percent: Int) -> Bool {
        Int.random(in: 0..<100, using: &generator) < percent
    }

    /// A piece, a random escaped byte, or a random code point.
    mutating func atom() -> String {
        switch Int.random(in: 0..<10, using: &generator) {
        case 0:
            let byte = UInt8.random(in: 0...255, using: &generator)
            return "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: chance(50))
        case 1:
            let value = UInt32.random(in: 0x20...0x2FFFF, using: &generator)
            return Unicode.Scalar(value).map { String(Character($0)) } ?? "?"
        case 2:
            return String(Character(Unicode.Scalar(UInt8.random(in: 0x21...0x7E, using: &generator))))
        default:
            return pick(Self.pieces)
        }
    }

    mutating func segment() -> String {
        (0..<Int.random(in: 0...4, using: &generator)).map { _ in atom() }.joined()
    }

    mutating func url() -> String {
        var url = (chance(50) ? "http" : "HTTPS") + "://" + pick(Self.hosts)
        for _ in 0..<Int.random(in: 0...5, using: &generator) {
            url += (chance(90) ? "/" : "\\") + segment()
        }
        if chance(15) { url += "/" }
        if chance(30) {
            url += "?" + (0..<Int.random(in: 0...(chance(10) ? 40 : 4), using: &generator)).map { _ in atom() }.joined()
        }
        if chance(10) { url += "#" + segment() }
        return url
    }
}
