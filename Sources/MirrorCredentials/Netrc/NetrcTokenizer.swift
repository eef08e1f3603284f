/// The words of a .netrc file, as curl reads them: separated by whitespace; in double quotes
/// when they hold spaces (`\"`, `\\`, `\n`, `\r` and `\t` escapes inside); a word starting
/// with `#` starts a comment to the end of the line.
struct NetrcTokenizer {
    struct Token {
        let text: String
        /// A quoted word is never a keyword.
        let quoted: Bool
        let line: Int
    }

    /// What stopped the reading, and where.
    struct Failure: Error {
        let line: Int
        let problem: String
    }

    private let bytes: [UInt8]
    private var index = 0
    private(set) var line = 1

    init(_ text: String) {
        bytes = Array(text.utf8)
    }

    /// The next word; nil at the end of the file.
    mutating func next() throws(Failure) -> Token? {
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "#") {
                skipLine()
            } else if Self.isSpace(byte) {
                if byte == UInt8(ascii: "\n") { line += 1 }
                index += 1
            } else if byte == UInt8(ascii: "\"") {
                return try quoted()
            } else {
                let start = index
                while index < bytes.count && !Self.isSpace(bytes[index]) { index += 1 }
                return Token(text: String(decoding: bytes[start..<index], as: UTF8.self), quoted: false, line: line)
            }
        }
        return nil
    }

    private mutating func quoted() throws(Failure) -> Token {
        index += 1
        var text: [UInt8] = []
        while index < bytes.count, bytes[index] != UInt8(ascii: "\n") {
            var byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "\"") { return Token(text: String(decoding: text, as: UTF8.self), quoted: true, line: line) }
            if byte == UInt8(ascii: "\\"), index < bytes.count, bytes[index] != UInt8(ascii: "\n") {
                switch bytes[index] {
                case UInt8(ascii: "n"): byte = UInt8(ascii: "\n")
                case UInt8(ascii: "r"): byte = UInt8(ascii: "\r")
                case UInt8(ascii: "t"): byte = UInt8(ascii: "\t")
                default: byte = bytes[index]
                }
                index += 1
            }
            text.append(byte)
        }
        throw Failure(line: line, problem: "a quoted word has no closing \" on its line")
    }

    /// Skips a `macdef` body: the rest of this line, then lines up to a blank one.
    mutating func skipMacro() {
        skipLine()
        while index < bytes.count {
            let end = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            let blank = bytes[index..<end].allSatisfy(Self.isSpace)
            index = end
            skipLine()
            if blank { return }
        }
    }

    /// Moves past the end of the current line.
    private mutating func skipLine() {
        while index < bytes.count && bytes[index] != UInt8(ascii: "\n") { index += 1 }
        if index < bytes.count {
            index += 1
            line += 1
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
    }
}
