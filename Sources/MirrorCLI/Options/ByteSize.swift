import ArgumentParser

/// A size on the command line: bytes, or a number with a unit `K`, `M`, `G`, `T` (powers of
/// 1024; `KB`, `KiB`, `k` read the same): `500K`, `10M`, `1.5G`.
struct ByteSize: ExpressibleByArgument, Sendable {
    let bytes: Int64

    init(bytes: Int64) {
        self.bytes = bytes
    }

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces)
        let number = text.prefix { $0.isNumber || $0 == "." }
        var unit = text.dropFirst(number.count).uppercased()
        if unit.hasSuffix("IB") { unit.removeLast(2) } else if unit.hasSuffix("B") { unit.removeLast() }
        let powers = ["": 0, "K": 1, "M": 2, "G": 3, "T": 4]
        guard let value = Double(number), value >= 0, let power = powers[unit] else { return nil }
        let bytes = (value * Double(Int64(1) << (10 * power))).rounded()
        guard bytes < Double(Int64.max) else { return nil }
        self.bytes = Int64(bytes)
    }

    /// In the largest unit that divides it: `1G`, `64M`, `1500`.
    var defaultValueDescription: String {
        for (unit, power) in [("T", 40), ("G", 30), ("M", 20), ("K", 10)] where bytes > 0 && bytes % (Int64(1) << power) == 0 {
            return "\(bytes >> power)\(unit)"
        }
        return "\(bytes)"
    }
}
