import Crypto

/// Checks bytes against a digest header (`WARC-Block-Digest`) as they stream by.
struct DigestCheck {
    private enum Hasher {
        case sha1(Insecure.SHA1)
        case sha256(SHA256)
    }

    private let expected: [UInt8]
    private var hasher: Hasher

    /// A check for `header`; nil when its algorithm or encoding is not one this reader knows.
    init?(_ header: String) {
        guard let (algorithm, bytes) = WARCDigest.parse(header) else { return nil }
        expected = bytes
        hasher = algorithm == "sha1" ? .sha1(Insecure.SHA1()) : .sha256(SHA256())
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        switch hasher {
        case .sha1(var sha1):
            sha1.update(bufferPointer: bytes)
            hasher = .sha1(sha1)
        case .sha256(var sha256):
            sha256.update(bufferPointer: bytes)
            hasher = .sha256(sha256)
        }
    }

    /// Whether the bytes seen so far have the expected digest.
    var matches: Bool {
        switch hasher {
        case .sha1(let sha1): return Array(sha1.finalize()) == expected
        case .sha256(let sha256): return Array(sha256.finalize()) == expected
        }
    }
}
