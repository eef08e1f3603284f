/// RFC 9110 §5.6.2 tokens: field names, authentication schemes and parameter names are made of
/// these bytes.
public enum HTTPToken {
    /// Whether `byte` is a `tchar`: a letter, a digit or one of ``!#$%&'*+-.^_`|~``.
    public static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return tokenPunctuation.contains(byte)
        }
    }

    /// Whether `text` is a token: at least one byte, every one a `tchar`.
    public static func isToken(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(isTokenByte)
    }

    private static let tokenPunctuation = Array("!#$%&'*+-.^_`|~".utf8)
}
