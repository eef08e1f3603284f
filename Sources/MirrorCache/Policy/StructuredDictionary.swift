/// The syntax check of a Structured Field Dictionary (RFC 8941 §3.2), which targeted cache
/// fields such as `CDN-Cache-Control` are (RFC 9213 §2.1): a field that fails it is ignored
/// as a whole. Only the syntax is checked; `CacheControl` reads the directives.
enum StructuredDictionary {
    /// Whether `text` is a dictionary whose members named in `integerKeys` are Integers.
    static func isValid(_ text: String, integerKeys: Set<String>) -> Bool {
        var scanner = Scanner(bytes: Array(text.utf8))
        scanner.skip(" ")
        guard !scanner.atEnd else { return false }
        while true {
            guard let key = scanner.key() else { return false }
            if scanner.take("=") {
                guard let isInteger = scanner.bareItem(), isInteger || !integerKeys.contains(key) else { return false }
            } else if integerKeys.contains(key) {
                return false  // a Boolean where an Integer is wanted
            }
            while scanner.take(";") {
                scanner.skip(" ")
                guard scanner.key() != nil, !scanner.take("=") || scanner.bareItem() != nil else { return false }
            }
            scanner.skipOptionalWhitespace()
            if scanner.atEnd { return true }
            guard scanner.take(",") else { return false }
            scanner.skipOptionalWhitespace()
            if scanner.atEnd { return false }  // a trailing comma
        }
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        var atEnd: Bool { index == bytes.count }
        private var next: UInt8? { atEnd ? nil : bytes[index] }

        mutating func take(_ character: Unicode.Scalar) -> Bool {
            guard next == UInt8(character.value) else { return false }
            index += 1
            return true
        }

        mutating func skip(_ character: Unicode.Scalar) { while take(character) {} }
        mutating func skipOptionalWhitespace() { while take(" ") || take("\t") {} }

        /// lcalpha or "*", then lcalpha, digits, "_", "-", ".", "*".
        mutating func key() -> String? {
            guard let first = next, Self.isLowercase(first) || first == UInt8(ascii: "*") else { return nil }
            let start = index
            while let byte = next, Self.isLowercase(byte) || Self.isDigit(byte) || "_-.*".utf8.contains(byte) { index += 1 }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        /// An Integer, Decimal, String, Token, Byte Sequence or Boolean; whether it was an Integer.
        mutating func bareItem() -> Bool? {
            guard let first = next else { return nil }
            switch first {
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
            case UInt8(ascii: "\""): return string() ? false : nil
            case UInt8(ascii: ":"): return byteSequence() ? false : nil
            case UInt8(ascii: "?"):
                index += 1
                return take("0") || take("1") ? false : nil
            default: return token() ? false : nil
            }
        }

        /// Up to 15 digits (an Integer), or up to 12 and 1–3 decimals (a Decimal).
        private mutating func number() -> Bool? {
            _ = take("-")
            let start = index
            while let byte = next, Self.isDigit(byte) { index += 1 }
            let integral = index - start
            guard integral > 0 else { return nil }
            guard take(".") else { return integral <= 15 }
            let fractionStart = index
            while let byte = next, Self.isDigit(byte) { index += 1 }
            return integral <= 12 && (1...3).contains(index - fractionStart) ? false : nil
        }

        private mutating func string() -> Bool {
            index += 1
            while let byte = next {
                index += 1
                switch byte {
                case UInt8(ascii: "\""): return true
                case UInt8(ascii: "\\"):
                    guard take("\"") || take("\\") else { return false }
                case 0x20...0x7e: continue
                default: return false
                }
            }
            return false
        }

        private mutating func byteSequence() -> Bool {
            index += 1
            while let byte = next, Self.isBase64(byte) { index += 1 }
            return take(":")
        }

        private mutating func token() -> Bool {
            guard let first = next, Self.isAlpha(first) || first == UInt8(ascii: "*") else { return false }
            while let byte = next, Self.isAlpha(byte) || Self.isDigit(byte) || "!#$%&'*+-.^_`|~:/".utf8.contains(byte) { index += 1 }
            return true
        }

        private static func isLowercase(_ byte: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) }
        private static func isAlpha(_ byte: UInt8) -> Bool { isLowercase(byte | 0x20) }
        private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        private static func isBase64(_ byte: UInt8) -> Bool { isAlpha(byte) || isDigit(byte) || "+/=".utf8.contains(byte) }
    }
}
