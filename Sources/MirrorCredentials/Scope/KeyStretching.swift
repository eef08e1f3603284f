import Crypto

/// PBKDF2-HMAC-SHA256 (RFC 8018), one block: what turns credentials into a fingerprint that
/// costs an attacker as much per guess as it costs a crawl once per origin.
enum KeyStretching {
    static let iterations = 100_000

    /// The 32-byte key derived from `secret` and `salt`.
    static func derive(_ secret: [UInt8], salt: [UInt8], iterations: Int = iterations) -> [UInt8] {
        let key = SymmetricKey(data: secret)
        var block = Array(HMAC<SHA256>.authenticationCode(for: salt + [0, 0, 0, 1], using: key))
        var result = block
        for _ in 1..<max(1, iterations) {
            block = Array(HMAC<SHA256>.authenticationCode(for: block, using: key))
            for index in result.indices { result[index] ^= block[index] }
        }
        return result
    }
}
