import Crypto

/// The first 4 bytes of SHA-256 in hex: short enough for a file name, stable across runs
/// and machines (unlike `hashValue`).
enum ShortHash {
    static func of(_ text: String) -> String {
        let digest = SHA256.hash(data: Array(text.utf8))
        return digest.prefix(4).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
