import Crypto

/// The first bytes of SHA-256 in hex: short enough for a file name, stable across runs
/// and machines (unlike `hashValue`).
enum ShortHash {
    /// - Parameter bytes: how many bytes of the digest to keep (twice as many hex digits).
    static func of(_ text: String, bytes: Int = 4) -> String {
        let digest = SHA256.hash(data: Array(text.utf8))
        return digest.prefix(bytes).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
