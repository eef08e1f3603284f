import MirrorCore
import MirrorLock

/// Header fields (`[[String]]`, each usually `[name, value]`) packed into one byte array
/// (`PackedBytes`): a manifest in memory holds a record per URL, and at 100,000 URLs these were
/// the largest part of a crawl's memory when it held its manifest. Per field, a varint tag: its
/// number of parts times eight, plus one when its name is a common one given by its place in
/// `commonNames` (one byte instead of the text), plus two times how its value is held when it
/// has exactly two parts — 1: a common value by its place in `commonValues`; 2: an IMF-fixdate
/// (`Date`, `Last-Modified`) as its seconds since the epoch, when formatting them gives back
/// exactly its text (5 bytes instead of 30). Then the name and the parts as strings, where not
/// held otherwise. Any strings round-trip, whatever bytes they hold.
///
/// The crawl's journal keeps records in this form (`StoredResource`): a change to it, or to the
/// places of the common names and values, is a new version of the journal's rows.
enum HeaderFields {
    /// Names as servers send them, then the same in lower case (as HTTP/2 has them). Their
    /// places are codes the journal keeps (`HeaderFields`' doc; a test pins them).
    static let commonNames: [String] = {
        let names = [
            "Server", "Date", "Content-Type", "Content-Length", "Last-Modified", "ETag", "Accept-Ranges",
            "Connection", "Keep-Alive", "Cache-Control", "Expires", "Pragma", "Age", "Vary", "Via",
            "Content-Encoding", "Transfer-Encoding", "Content-Language", "Content-Disposition",
            "Content-Range", "Location", "Set-Cookie", "Link", "Alt-Svc", "Retry-After", "Warning",
            "Strict-Transport-Security", "Content-Security-Policy", "X-Content-Type-Options",
            "X-Frame-Options", "X-XSS-Protection", "Referrer-Policy", "Permissions-Policy",
            "Access-Control-Allow-Origin", "X-Cache", "CF-Cache-Status", "CF-RAY", "Report-To", "NEL",
        ]
        return names + names.map { $0.lowercased() }
    }()

    /// Values many responses of a site share, exactly as sent. Their places are codes the
    /// journal keeps (`HeaderFields`' doc; a test pins them).
    static let commonValues = [
        "keep-alive", "close", "bytes", "none", "chunked", "gzip", "br", "deflate", "Accept-Encoding", "Origin",
        "text/html", "text/html; charset=utf-8", "text/html; charset=UTF-8", "text/css", "text/css; charset=utf-8",
        "text/plain", "text/plain; charset=utf-8", "text/javascript", "application/javascript", "application/json",
        "application/xml", "image/png", "image/jpeg", "image/gif", "image/svg+xml", "image/webp", "image/x-icon",
        "font/woff2", "font/woff", "nosniff", "DENY", "SAMEORIGIN", "no-cache", "no-store", "public", "private",
        "max-age=0", "HIT", "MISS", "1; mode=block", "*", "0", "nginx", "Apache", "cloudflare",
    ]

    /// Names and values by bytes (`UTF8Key`): Strings compare by canonical equivalence, so by
    /// String `text/html\u{37E} charset=utf-8` (a Greek question mark) would be held as the
    /// common `text/html; charset=utf-8`, and `\u{212A}eep-Alive` (the Kelvin sign) as `Keep-Alive`.
    private static let codeOfName = codes(commonNames)
    private static let codeOfValue = codes(commonValues)

    private static func codes(_ texts: [String]) -> [UTF8Key: Int] {
        Dictionary(texts.enumerated().map { (UTF8Key($1), $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// How a two-part field's value is held when not as text.
    private enum Value {
        case common(Int)
        case date(Int)

        init?(_ text: String) {
            if let code = codeOfValue[UTF8Key(text)] {
                self = .common(code)
            } else if let seconds = HeaderFields.date(text) {
                self = .date(seconds)
            } else {
                return nil
            }
        }

        /// Its kind in a field's tag (0: text).
        var kind: Int {
            switch self {
            case .common: 1
            case .date: 2
            }
        }
    }

    /// The seconds of `text` when it is an IMF-fixdate that formats back to itself. A crawl's
    /// responses carry few distinct dates (the second's `Date`, a site's `Last-Modified`), and
    /// reading and formatting one took half the packing of a response's fields: each text is
    /// checked once and its answer kept, for at most `maxKnownDates` texts at a time.
    private static func date(_ text: String) -> Int? {
        guard text.utf8.count == 29, text.utf8.last == UInt8(ascii: "T") else { return nil }
        return knownDates.memoized(UTF8Key(text), limit: maxKnownDates) {
            HTTPDate.parse(text).flatMap { $0 >= 0 && HTTPDate.format($0) == text ? Int($0) : nil }
        }
    }

    /// The answers of `date` kept, by the date's bytes; nil for a text that is not a date it holds.
    private static let knownDates = Locked<[UTF8Key: Int?]>([:])
    private static let maxKnownDates = 256

    static func pack(_ fields: [[String]]) -> [UInt8] {
        var bytes = PackedBytes(capacity: 512)
        for field in fields {
            guard field.count != 2 else {
                appendPair(name: field[0], value: field[1], to: &bytes)
                continue
            }
            let name = field.first.flatMap { codeOfName[UTF8Key($0)] }
            bytes.append(field.count * 8 + (name == nil ? 0 : 1))
            if let name { bytes.append(name) }
            for part in field.dropFirst(name == nil ? 0 : 1) { bytes.append(part) }
        }
        return exactCopy(of: bytes)
    }

    /// `pack` of `[name, value]` fields (a response's headers), without an array made for each.
    static func pack(pairs: some Sequence<(name: String, value: String)>) -> [UInt8] {
        var bytes = PackedBytes(capacity: 512)
        for (name, value) in pairs { appendPair(name: name, value: value, to: &bytes) }
        return exactCopy(of: bytes)
    }

    /// Appends the field `[name, value]`: its tag, its name's code or text, then its value as
    /// `Value` holds it or as text.
    private static func appendPair(name: String, value: String, to bytes: inout PackedBytes) {
        let code = codeOfName[UTF8Key(name)]
        let held = Value(value)
        bytes.append(2 * 8 + (code == nil ? 0 : 1) + (held?.kind ?? 0) * 2)
        if let code { bytes.append(code) } else { bytes.append(name) }
        switch held {
        case .common(let valueCode): bytes.append(valueCode)
        case .date(let seconds): bytes.append(seconds)
        case nil: bytes.append(value)
        }
    }

    /// A copy of `bytes` of their exact size: the array keeps whatever capacity it has, for as
    /// long as the crawl.
    private static func exactCopy(of bytes: PackedBytes) -> [UInt8] {
        var packed: [UInt8] = []
        packed.reserveCapacity(bytes.bytes.count)
        packed += bytes.bytes
        return packed
    }

    /// A field's tag and name, read: what the rest of it is.
    private struct Head {
        var count: Int
        var valueKind: Int
        var name: String?
    }

    /// Reads a field's tag and name (no name for a field of no parts); nil at the end or on bytes
    /// `pack` did not write.
    private static func head(_ bytes: inout PackedBytes) -> Head? {
        guard !bytes.isAtEnd, let tag = bytes.readInt(), tag >= 0 else { return nil }
        var head = Head(count: tag / 8, valueKind: tag / 2 % 4)
        if tag % 2 == 1 {
            guard head.count > 0, let code = bytes.readInt(), commonNames.indices.contains(code) else { return nil }
            head.name = commonNames[code]
        } else if head.count > 0 {
            guard let name = bytes.readString() else { return nil }
            head.name = name
        }
        return head
    }

    /// Reads the parts of a field after its name.
    private static func parts(after head: Head, _ bytes: inout PackedBytes) -> [String]? {
        var parts: [String] = []
        parts.reserveCapacity(max(0, head.count - 1))
        while parts.count < textParts(head) {
            guard let part = bytes.readString() else { return nil }
            parts.append(part)
        }
        switch head.valueKind {
        case 1:
            guard let code = valueCode(&bytes) else { return nil }
            parts.append(commonValues[code])
        case 2:
            guard let seconds = dateSeconds(&bytes) else { return nil }
            parts.append(HTTPDate.format(seconds))
        default: break
        }
        return parts
    }

    /// Moves past the parts of a field after its name, making none of them; false on bytes
    /// `pack` did not write.
    private static func skipParts(after head: Head, _ bytes: inout PackedBytes) -> Bool {
        for _ in 0..<max(0, textParts(head)) {
            guard bytes.skipString() else { return false }
        }
        switch head.valueKind {
        case 0: return true
        case 1: return valueCode(&bytes) != nil
        case 2: return dateSeconds(&bytes) != nil
        default: return false
        }
    }

    /// How many of a field's parts after its name are held as text.
    private static func textParts(_ head: Head) -> Int {
        head.count - 1 - (head.valueKind == 0 ? 0 : 1)
    }

    /// A common value's code, read.
    private static func valueCode(_ bytes: inout PackedBytes) -> Int? {
        guard let code = bytes.readInt(), commonValues.indices.contains(code) else { return nil }
        return code
    }

    /// A date's seconds, read: a time `pack` holds so (since the epoch, and one `HTTPDate` writes).
    private static func dateSeconds(_ bytes: inout PackedBytes) -> Int64? {
        guard let seconds = bytes.readInt(), (0...HTTPDate.writableSeconds.upperBound).contains(Int64(seconds)) else { return nil }
        return Int64(seconds)
    }

    /// The fields of `pack`'s bytes (or of bytes `isPacked` accepts).
    static func unpack(_ packed: [UInt8]) -> [[String]] {
        var bytes = PackedBytes(reading: packed)
        var fields: [[String]] = []
        while let head = head(&bytes), let parts = parts(after: head, &bytes) {
            fields.append(head.name.map { [$0] + parts } ?? [])
        }
        return fields
    }

    /// Whether `packed` reads as fields `pack` writes, through to its end: each tag, name code,
    /// value code and date of a kind `pack` writes, each string within the bytes. (Not checked:
    /// that a string is none `pack` would have held as a code, or a number written in no more
    /// bytes than it needs.)
    static func isPacked(_ packed: [UInt8]) -> Bool {
        var bytes = PackedBytes(reading: packed)
        while !bytes.isAtEnd {
            // A value held otherwise than as text is the second of exactly two parts.
            guard let head = head(&bytes), head.valueKind == 0 || head.count == 2, skipParts(after: head, &bytes) else { return false }
        }
        return true
    }

    /// The value of the first `[name, value]` field named `name` (ASCII case ignored, as
    /// `HTTPHeaders.first(name:)`), read from `pack`'s bytes: the fields before it are passed
    /// over, not unpacked.
    static func firstValue(named name: String, in packed: [UInt8]) -> String? {
        guard var (head, bytes) = firstField(named: name, in: packed) else { return nil }
        return parts(after: head, &bytes)?.first
    }

    /// Whether the value of the first `[name, value]` field named `name` in `pack`'s bytes is
    /// `value` byte for byte (both nil when there is none): `firstValue(named:in:) == value`
    /// without making that value — a date is compared by its seconds, not formatted again.
    static func firstValue(named name: String, in packed: [UInt8], is value: String?) -> Bool {
        guard var (head, bytes) = firstField(named: name, in: packed) else { return value == nil }
        guard let value else { return parts(after: head, &bytes)?.first == nil }
        switch head.valueKind {
        case 0: return bytes.readString().map { $0.utf8.elementsEqual(value.utf8) } ?? false
        case 1: return valueCode(&bytes).map { commonValues[$0].utf8.elementsEqual(value.utf8) } ?? false
        case 2: return dateSeconds(&bytes).map { date(value) == Int($0) } ?? false
        default: return false
        }
    }

    /// The head of the first `[name, value]` field named `name`, and the bytes read up to its
    /// value; nil when there is none (or the bytes before it are not `pack`'s).
    private static func firstField(named name: String, in packed: [UInt8]) -> (Head, PackedBytes)? {
        var bytes = PackedBytes(reading: packed)
        while let head = head(&bytes) {
            if head.count == 2, let found = head.name, equalIgnoringASCIICase(found, name) { return (head, bytes) }
            guard skipParts(after: head, &bytes) else { return nil }
        }
        return nil
    }

    private static func equalIgnoringASCIICase(_ a: String, _ b: String) -> Bool {
        func lower(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
        return a.utf8.count == b.utf8.count && zip(a.utf8, b.utf8).allSatisfy { lower($0) == lower($1) }
    }
}
