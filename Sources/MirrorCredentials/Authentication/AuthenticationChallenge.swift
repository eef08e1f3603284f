import MirrorCore

/// One challenge of a `WWW-Authenticate` (or `Proxy-Authenticate`) field (RFC 9110 §11.6.1):
/// its scheme and parameters. A field may hold several challenges, and a response several fields.
public struct AuthenticationChallenge: Sendable, Equatable {
    /// Lower-cased: `basic`, `digest`, `bearer`, …
    public let scheme: String
    /// Parameter names lower-cased; quoted values unquoted.
    public let parameters: [String: String]

    public var realm: String? { parameters["realm"] }

    /// Every challenge of `fields` (the values of every such field of a response), in order.
    public static func parse(_ fields: [String]) -> [AuthenticationChallenge] {
        fields.flatMap { parse(field: Array($0.utf8)) }
    }

    /// A field is a list of challenges `scheme [token68 | param, param…]`, commas separating both
    /// the challenges and their parameters: a new challenge starts at a token not followed by `=`.
    private static func parse(field bytes: [UInt8]) -> [AuthenticationChallenge] {
        var reader = Reader(bytes: bytes)
        var challenges: [AuthenticationChallenge] = []
        var scheme: String?
        var parameters: [String: String] = [:]
        func close() {
            if let scheme { challenges.append(AuthenticationChallenge(scheme: scheme, parameters: parameters)) }
            parameters = [:]
        }
        while true {
            reader.skip { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            guard let token = reader.token() else {
                if reader.atEnd { break }
                reader.skipToComma()  // not a token: the rest of this item is unreadable
                continue
            }
            reader.skip { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            if reader.peek == UInt8(ascii: "="), scheme != nil {
                reader.advance()
                reader.skip { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
                let value = reader.peek == UInt8(ascii: "\"") ? reader.quoted() : (reader.token() ?? "")
                parameters[token.lowercased()] = value
                continue
            }
            // A new challenge; a token68 (`Basic abc==`) after it is read and dropped.
            close()
            scheme = token.lowercased()
            if let next = reader.peek, next != UInt8(ascii: ","), reader.isToken68Ahead {
                reader.skipToComma()
            }
        }
        close()
        return challenges
    }

    /// A cursor over a field's bytes.
    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        var atEnd: Bool { index >= bytes.count }
        var peek: UInt8? { atEnd ? nil : bytes[index] }

        mutating func advance() { index += 1 }

        mutating func skip(while predicate: (UInt8) -> Bool) {
            while let byte = peek, predicate(byte) { index += 1 }
        }

        mutating func skipToComma() {
            while let byte = peek, byte != UInt8(ascii: ",") { index += 1 }
        }

        /// A token (RFC 9110 §5.6.2), or nil when none starts here.
        mutating func token() -> String? {
            let start = index
            skip(while: HTTPToken.isTokenByte)
            return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
        }

        /// A token68 follows when what comes up to the next comma has no `=` or space but those
        /// that end it (padding). Read no further than the first byte after such an end: a field
        /// of many schemes and no comma (`a b c …`) is then read in linear time, not quadratic.
        var isToken68Ahead: Bool {
            var end = index
            while end < bytes.count, bytes[end] == UInt8(ascii: " ") { end += 1 }
            let start = end
            var ending = false
            while end < bytes.count, bytes[end] != UInt8(ascii: ",") {
                if bytes[end] == UInt8(ascii: "=") || bytes[end] == UInt8(ascii: " ") {
                    ending = true
                } else if ending {
                    return false
                }
                end += 1
            }
            return end > start
        }

        /// A quoted string, unescaped; the opening quote is at `index`.
        mutating func quoted() -> String {
            index += 1
            var value: [UInt8] = []
            while let byte = peek {
                index += 1
                if byte == UInt8(ascii: "\"") { break }
                if byte == UInt8(ascii: "\\"), let escaped = peek {
                    index += 1
                    value.append(escaped)
                } else {
                    value.append(byte)
                }
            }
            return String(decoding: value, as: UTF8.self)
        }
    }
}
