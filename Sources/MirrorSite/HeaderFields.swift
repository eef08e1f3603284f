import MirrorCore

/// Header fields (`[[String]]`, each usually `[name, value]`) packed into one byte array
/// (`PackedBytes`). Per field: a varint of its number of parts times two, plus one when its
/// name is a common one given by its place in `commonNames` (one byte instead of the text: a
/// crawl holds a record per URL, and the names were half their bytes); then the parts as
/// strings. Any strings round-trip, whatever bytes they hold. Only ever held in memory.
enum HeaderFields {
    /// Names as servers send them, then the same in lower case (as HTTP/2 has them).
    private static let commonNames: [String] = {
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

    private static let codeOfName: [String: Int] =
        Dictionary(commonNames.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })

    static func pack(_ fields: [[String]]) -> [UInt8] {
        let codes = fields.map { field in field.first.flatMap { codeOfName[$0] } }
        // Sized exactly first: the array keeps whatever capacity it was given, for as long as the crawl.
        var size = 0
        for (field, code) in zip(fields, codes) {
            size += varintSize(field.count * 2 + 1) + (code.map(varintSize) ?? 0)
            for part in field.dropFirst(code == nil ? 0 : 1) { size += varintSize(part.utf8.count) + part.utf8.count }
        }
        var bytes = PackedBytes(capacity: size)
        for (field, code) in zip(fields, codes) {
            bytes.append(field.count * 2 + (code == nil ? 0 : 1))
            if let code { bytes.append(code) }
            for part in field.dropFirst(code == nil ? 0 : 1) { bytes.append(part) }
        }
        return bytes.bytes
    }

    /// The fields of `pack`'s bytes (the only bytes it is given).
    static func unpack(_ packed: [UInt8]) -> [[String]] {
        var bytes = PackedBytes(reading: packed)
        var fields: [[String]] = []
        while !bytes.isAtEnd, let tag = bytes.readInt(), tag >= 0 {
            var field: [String] = []
            if tag % 2 == 1, let code = bytes.readInt(), commonNames.indices.contains(code) { field.append(commonNames[code]) }
            while field.count < tag / 2, let part = bytes.readString() { field.append(part) }
            fields.append(field)
        }
        return fields
    }

    /// The value of the first `[name, value]` field named `name` (ASCII case ignored, as
    /// `HTTPHeaders.first(name:)`), read from `pack`'s bytes without unpacking the others.
    static func firstValue(named name: String, in packed: [UInt8]) -> String? {
        var bytes = PackedBytes(reading: packed)
        while !bytes.isAtEnd, let tag = bytes.readInt(), tag >= 0 {
            let count = tag / 2
            let fieldName: String
            if tag % 2 == 1 {
                guard let code = bytes.readInt(), commonNames.indices.contains(code) else { return nil }
                fieldName = commonNames[code]
            } else if count > 0 {
                guard let text = bytes.readString() else { return nil }
                fieldName = text
            } else {
                continue
            }
            for index in 1..<max(1, count) {
                guard let part = bytes.readString() else { return nil }
                if index == 1 && count == 2 && equalIgnoringASCIICase(fieldName, name) { return part }
            }
        }
        return nil
    }

    private static func equalIgnoringASCIICase(_ a: String, _ b: String) -> Bool {
        func lower(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
        return a.utf8.count == b.utf8.count && zip(a.utf8, b.utf8).allSatisfy { lower($0) == lower($1) }
    }

    private static func varintSize(_ value: Int) -> Int {
        var size = 1
        var rest = UInt(bitPattern: value) >> 7
        while rest > 0 {
            size += 1
            rest >>= 7
        }
        return size
    }
}
