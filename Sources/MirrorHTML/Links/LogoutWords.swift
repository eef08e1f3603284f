/// Whether a link's URL, title or text reads as "log out": a link a crawl carrying a user's
/// login must not follow, as following it would end the session.
///
/// The text is split into words at every byte that is not an ASCII letter or digit and where a
/// lower-case letter is followed by an upper-case one (`logOut`, `signOff`), then lower-cased.
/// It matches when a word is `logout`, `logoff`, `signout` or `signoff`, or when a word `log`
/// or `sign` is followed by the word `out` or `off`. So `/accounts/logout/`, `/users/sign_out`,
/// `?action=logout`, `Log out`, `Sign Out`, `sign-off`, `/session/logOut` and `LOGOUT` match;
/// `/catalog/output`, `Catalog outline`, `/blog/outreach`, `login`, `signup` and `/logo.png`
/// do not.
///
/// Bytes of non-ASCII characters (UTF-8 or any other charset) separate words, like punctuation:
/// a no-break space, the commonest of them in link text (`Log&nbsp;out`), then separates
/// words as a space does, and no other character can make an English word of these.
///
/// It runs on the bytes, with no allocation: each word is packed into an integer as it is read
/// (every word that counts has at most eight letters).
public enum LogoutWords {
    /// Whether `text` reads as "log out" (see above).
    public static func matches(_ text: some StringProtocol) -> Bool {
        if let found = text.utf8.withContiguousStorageIfAvailable({ matches($0) }) { return found }
        var reader = WordReader()
        for byte in text.utf8 where reader.read(byte) { return true }
        return reader.finish()
    }

    /// Whether `bytes` (UTF-8, or any ASCII-compatible charset) read as "log out".
    static func matches(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var reader = WordReader()
        for byte in bytes where reader.read(byte) { return true }
        return reader.finish()
    }

    // Each word looked for, its lower-cased ASCII bytes packed into an integer, the first in the
    // lowest byte. Literals, not computed: a computed static is initialized lazily, and every
    // word's end would pay for the check.
    private static let logout: UInt64 = 0x7475_6f67_6f6c  // "logout"
    private static let logoff: UInt64 = 0x6666_6f67_6f6c  // "logoff"
    private static let signout: UInt64 = 0x74_756f_6e67_6973  // "signout"
    private static let signoff: UInt64 = 0x66_666f_6e67_6973  // "signoff"
    private static let log: UInt64 = 0x67_6f6c  // "log"
    private static let sign: UInt64 = 0x6e67_6973  // "sign"
    private static let out: UInt64 = 0x74_756f  // "out"
    private static let off: UInt64 = 0x66_666f  // "off"

    /// Reads text a byte at a time, word by word.
    private struct WordReader {
        /// The current word's lower-cased bytes, packed as the words looked for are; zero before its
        /// first letter.
        private var word: UInt64 = 0
        /// How many bytes the current word has.
        private var length = 0
        /// Whether the last byte was a lower-case ASCII letter (a capital next starts a word).
        private var afterLower = false
        /// Whether the previous word was `log` or `sign`.
        private var afterVerb = false

        /// Takes the next byte; true once the text has matched.
        mutating func read(_ byte: UInt8) -> Bool {
            let lower = byte | 0x20
            let isLetter = lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z")
            guard isLetter || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) else {
                afterLower = false
                return length > 0 && endWord()
            }
            let isUpper = isLetter && byte & 0x20 == 0
            if isUpper && afterLower && endWord() { return true }
            afterLower = isLetter && !isUpper
            // Words longer than eight bytes are none of those looked for: their bytes are not kept.
            if length < 8 { word |= UInt64(isLetter ? lower : byte) << UInt64(8 * length) }
            length += 1
            return false
        }

        /// Ends the text; true when its last word completes a match.
        mutating func finish() -> Bool {
            length > 0 && endWord()
        }

        /// Ends the current word; true when it completes a match.
        private mutating func endWord() -> Bool {
            defer {
                word = 0
                length = 0
            }
            guard length <= 8 else {
                afterVerb = false
                return false
            }
            if afterVerb && (word == LogoutWords.out || word == LogoutWords.off) { return true }
            if word == LogoutWords.logout || word == LogoutWords.logoff || word == LogoutWords.signout
                || word == LogoutWords.signoff
            {
                return true
            }
            afterVerb = word == LogoutWords.log || word == LogoutWords.sign
            return false
        }
    }
}
