/// Lower-case hexadecimal text of bytes (digests in manifests, cache names and reports).
public enum Hex {
    /// Written straight into the string's storage, without a table or a buffer of its own: a
    /// digest's text is made several times for every response a crawl saves.
    public static func string(_ bytes: some Sequence<UInt8>) -> String {
        let text = bytes.withContiguousStorageIfAvailable { string(of: $0) }
        return text ?? string(of: Array(bytes))
    }

    private static func string(of bytes: some Collection<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { text in
            var index = 0
            for byte in bytes {
                text[index] = digit(byte >> 4)
                text[index + 1] = digit(byte & 0x0f)
                index += 2
            }
            return index
        }
    }

    /// The lower-case hex digit of a value below 16.
    private static func digit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") - 10 + value
    }

    /// The bytes a string of hexadecimal digits (either case) stands for; nil when it is not one.
    public static func bytes(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = PercentEncoding.hexValue(digits[index]), let low = PercentEncoding.hexValue(digits[index + 1]) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return bytes
    }
}
