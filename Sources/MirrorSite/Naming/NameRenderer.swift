/// Turns normalized URL text into name units that are legal on Linux, macOS and Windows.
///
/// Escapes of bytes that can never appear literally in normalized text (space, non-ASCII
/// UTF-8, `[`, `#`, …) are decoded when the result is a safe, printable character; this is
/// reversible, so distinct URLs keep distinct names. Everything else is written `%XX`.
/// One case is not reversible: `:`, `*`, `@` (and `/`, `?` in a query) must be escaped
/// whether the URL had them literally or escaped, so an escaped one marks the name
/// `ambiguous` and the caller adds a hash of the URL text.
enum NameRenderer {
    /// Where the text comes from, which decides what may appear literally in it.
    enum Context {
        case pathSegment, query

        /// RFC 3986 characters a normalized URL keeps literal here (see `PercentEncoding`).
        func allowsLiteral(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return "-._~!$&'()*+,;=:@".utf8.contains(byte) || (self == .query && "/?".utf8.contains(byte))
            }
        }
    }

    /// ASCII characters that are legal in names everywhere and carry no meaning in our scheme
    /// (`%` starts escapes, `@` starts the query, `~` starts a hash or marks an added extension).
    static func isSafeLiteral(_ byte: UInt8) -> Bool {
        (0x20...0x7E).contains(byte) && !"<>:\"/\\|?*%@~".utf8.contains(byte)
    }

    /// Non-ASCII characters written as is: anything visible (no controls, format characters,
    /// private use, unassigned code points, or separators that look like spaces or line breaks).
    static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator,
            .spaceSeparator:
            return false
        default:
            return true
        }
    }

    /// Renders normalized URL text (literal ASCII and upper-case `%XX` escapes).
    static func render(_ text: Substring, context: Context) -> (units: [NameUnit], ambiguous: Bool) {
        let bytes = Array(text.utf8)
        var units: [NameUnit] = []
        var ambiguous = false
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "%") else {
                let byte = bytes[index]
                units.append(isSafeLiteral(byte) ? .literal(Unicode.Scalar(byte)) : .escaped(byte))
                index += 1
                continue
            }
            var run: [UInt8] = []
            while index + 2 < bytes.count, bytes[index] == UInt8(ascii: "%"),
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                run.append(high << 4 | low)
                index += 3
            }
            if run.isEmpty {  // a stray `%`; normalized text has none, but never loop on it
                units.append(.escaped(bytes[index]))
                index += 1
                continue
            }
            units += decode(run, context: context, ambiguous: &ambiguous)
        }
        return (units, ambiguous)
    }

    /// Renders a host as written (it is not percent-decoded, so `%` is escaped like the rest);
    /// `_` is escaped because it separates the host from a port.
    static func renderHost(_ host: String) -> [NameUnit] {
        var units: [NameUnit] = []
        for scalar in host.unicodeScalars {
            if scalar.isASCII {
                let byte = UInt8(scalar.value)
                units.append(isSafeLiteral(byte) && byte != UInt8(ascii: "_") ? .literal(scalar) : .escaped(byte))
            } else if isPrintable(scalar) {
                units.append(.literal(scalar))
            } else {
                units += Array(String(scalar).utf8).map(NameUnit.escaped)
            }
        }
        return units
    }

    /// Decodes a run of escaped bytes: valid UTF-8 for printable characters becomes the
    /// characters, anything else (invalid, overlong, surrogates, controls) stays escaped.
    private static func decode(_ run: [UInt8], context: Context, ambiguous: inout Bool) -> [NameUnit] {
        var units: [NameUnit] = []
        var index = 0
        while index < run.count {
            let byte = run[index]
            if byte < 0x80 {
                if context.allowsLiteral(byte) {
                    // The URL chose to escape a character it could have written: keep the escape.
                    units.append(.escaped(byte))
                    if !isSafeLiteral(byte) { ambiguous = true }
                } else {
                    units.append(isSafeLiteral(byte) ? .literal(Unicode.Scalar(byte)) : .escaped(byte))
                }
                index += 1
                continue
            }
            let width = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
            if width > 1, index + width <= run.count,
                let decoded = String(validating: run[index..<index + width], as: UTF8.self),
                let scalar = decoded.unicodeScalars.first, isPrintable(scalar)
            {
                units.append(.literal(scalar))
                index += width
            } else {
                units.append(.escaped(byte))
                index += 1
            }
        }
        return units
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
