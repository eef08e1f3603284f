/// Percent-encoding per RFC 3986: normalizing existing escapes and escaping what must be.
public enum PercentEncoding {
    /// Which characters may stay literal.
    public enum Component: Sendable {
        case path, query

        func allows(_ byte: UInt8) -> Bool {
            if PercentEncoding.isUnreserved(byte) { return true }
            switch byte {
            case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
                UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
                UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "/"):
                return true
            case UInt8(ascii: "?"): return self == .query
            default: return false
            }
        }
    }

    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// Escapes every byte of `text` but the unreserved ones and those `keep` allows, `%`
    /// included: for text that holds no escape yet, such as a file's path made into a URL.
    public static func escape(_ text: String, keeping keep: (UInt8) -> Bool) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) || (byte != UInt8(ascii: "%") && keep(byte)) {
                output.append(byte)
            } else {
                output += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0f)]]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// `path` (an absolute path) as a `file://` URL, each byte but the unreserved ones and `/`
    /// percent-encoded.
    public static func fileURL(path: String) -> String {
        "file://" + escape(path) { $0 == UInt8(ascii: "/") }
    }

    /// Upper-cases escapes, decodes escaped unreserved characters, and escapes bytes that
    /// may not appear literally (a `%` not followed by two hex digits becomes `%25`).
    public static func normalize(_ text: String, allowing component: Component) -> String {
        // Most paths and queries have no escape and nothing to escape: then the text is its own
        // normal form, found in one pass over its bytes without copying them.
        var text = text
        if text.withUTF8({ $0.allSatisfy(component.allows) }) { return text }  // `%` is never allowed
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                let decoded = high << 4 | low
                if isUnreserved(decoded) {
                    output.append(decoded)
                } else {
                    output += [UInt8(ascii: "%"), hexDigits[Int(high)], hexDigits[Int(low)]]
                }
                index += 3
                continue
            }
            if component.allows(byte) {
                output.append(byte)
            } else {
                output += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0f)]]
            }
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes every escape; invalid UTF-8 is replaced. For display and file names, not for keys.
    public static func decode(_ text: String) -> String {
        String(decoding: decode(bytes: Array(text.utf8)), as: UTF8.self)
    }

    /// Decodes every `%XX` escape of `bytes` once; a `%` not followed by two hex digits stays.
    public static func decode(bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return output
    }
}
