/// RFC 3492 Punycode, encoding only: the public suffix list writes internationalized suffixes
/// in Unicode (`公司.cn`), while URLs and cookies carry their ASCII form (`xn--55qx5d.cn`).
enum Punycode {
    private static let base = 36, tMin = 1, tMax = 26, skew = 38, damp = 700

    /// The ASCII form of a domain: each label with non-ASCII characters becomes `xn--` and its
    /// Punycode. Labels are taken as written (the list is lower-cased and normalized already).
    static func asciiDomain(_ domain: Substring) -> String {
        let labels = domain.unicodeScalars.split(separator: ".", omittingEmptySubsequences: false).map { label in
            label.allSatisfy(\.isASCII) ? String(label) : "xn--" + encode(label.map(\.value))
        }
        return labels.joined(separator: ".")
    }

    /// The Punycode of a label's code points (RFC 3492 §6.3), without the `xn--` prefix.
    static func encode(_ input: [UInt32]) -> String {
        var output = input.filter { $0 < 0x80 }.map { UInt8($0) }
        let basicCount = output.count
        if basicCount > 0 { output.append(UInt8(ascii: "-")) }
        var n: UInt32 = 0x80
        var delta = 0
        var bias = 72
        var handled = basicCount
        while handled < input.count {
            let next = input.filter { $0 >= n }.min()!
            delta += Int(next - n) * (handled + 1)
            n = next
            for codePoint in input {
                if codePoint < n { delta += 1 }
                guard codePoint == n else { continue }
                var q = delta
                var k = base
                while true {
                    let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                    if q < t { break }
                    output.append(digit(t + (q - t) % (base - t)))
                    q = (q - t) / (base - t)
                    k += base
                }
                output.append(digit(q))
                bias = adapt(delta, points: handled + 1, first: handled == basicCount)
                delta = 0
                handled += 1
            }
            delta += 1
            n += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func digit(_ value: Int) -> UInt8 {
        UInt8(value < 26 ? 0x61 + value : 0x30 + value - 26)
    }

    private static func adapt(_ delta: Int, points: Int, first: Bool) -> Int {
        var delta = first ? delta / damp : delta / 2
        delta += delta / points
        var k = 0
        while delta > (base - tMin) * tMax / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }
}
