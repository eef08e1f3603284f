import Crypto
import MirrorCore

/// Digests as WARC headers write them: `sha1:` and the SHA-1 in base32 (RFC 4648), which is
/// what `WARC-Block-Digest` and `WARC-Payload-Digest` hold in files written by wget, Heritrix
/// and warcio. Reading also accepts `sha256:`, and hex as well as base32.
enum WARCDigest {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// `sha1:` and the base32 of `digest`.
    static func sha1(_ digest: Insecure.SHA1.Digest) -> String {
        "sha1:" + base32(Array(digest))
    }

    /// RFC 4648 base32, upper case, padded with `=`.
    static func base32(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        var buffer = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                output.append(alphabet[(buffer >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        if bits > 0 { output.append(alphabet[(buffer << (5 - bits)) & 31]) }
        while output.count % 8 != 0 { output.append(UInt8(ascii: "=")) }
        return String(decoding: output, as: UTF8.self)
    }

    /// A digest header's algorithm (lower-cased) and bytes; nil when it cannot be read.
    static func parse(_ value: String) -> (algorithm: String, bytes: [UInt8])? {
        guard let colon = value.utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let algorithm = Substring(value.utf8[..<colon]).lowercased().replacingOccurrences(of: "-", with: "")
        let text = String(Substring(value.utf8[value.utf8.index(after: colon)...]).trimmingASCIIWhitespace())
        let length = ["sha1": 20, "sha256": 32][algorithm]
        guard let length else { return nil }
        if let bytes = hex(text), bytes.count == length { return (algorithm, bytes) }
        if let bytes = decodeBase32(text), bytes.count == length { return (algorithm, bytes) }
        return nil
    }

    private static func hex(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }

    private static func decodeBase32(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        var buffer = 0
        var bits = 0
        for character in text.uppercased().utf8 where character != UInt8(ascii: "=") {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            buffer = (buffer << 5) | value
            bits += 5
            if bits >= 8 {
                bytes.append(UInt8((buffer >> (bits - 8)) & 0xFF))
                bits -= 8
            }
        }
        return bytes
    }
}
