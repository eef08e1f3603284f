/// One piece of a file or folder name: a character written as is, or the `%XX` escape of one byte.
enum NameUnit: Sendable, Hashable {
    case literal(Unicode.Scalar)
    case escaped(UInt8)

    private static let hexDigits = Array("0123456789ABCDEF".unicodeScalars)

    var text: String {
        var text = ""
        append(to: &text)
        return text
    }

    /// Appends the unit's characters: a name's units go into one string.
    func append(to text: inout String) {
        switch self {
        case .literal(let scalar):
            text.unicodeScalars.append(scalar)
        case .escaped(let byte):
            text.unicodeScalars.append("%")
            text.unicodeScalars.append(Self.hexDigits[Int(byte >> 4)])
            text.unicodeScalars.append(Self.hexDigits[Int(byte & 0x0F)])
        }
    }

    var byteCount: Int {
        switch self {
        case .literal(let scalar): return UTF8.width(scalar)
        case .escaped: return 3
        }
    }

    /// The ASCII character, when this is one written as is.
    var asciiLiteral: UInt8? {
        if case .literal(let scalar) = self, scalar.isASCII { return UInt8(scalar.value) }
        return nil
    }

    /// The same character escaped; only meaningful for ASCII literals.
    var escapedForm: NameUnit {
        asciiLiteral.map(NameUnit.escaped) ?? self
    }

    static func literals(_ text: String) -> [NameUnit] {
        text.unicodeScalars.map(NameUnit.literal)
    }
}

extension Collection where Element == NameUnit {
    var text: String {
        var text = ""
        for unit in self { unit.append(to: &text) }
        return text
    }
    var byteCount: Int { reduce(0) { $0 + $1.byteCount } }
}
