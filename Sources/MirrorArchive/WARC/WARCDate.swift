#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// WARC dates (W3C-DTF in UTC, `2024-05-01T12:34:56.123456Z`) and the 14-digit timestamps of
/// CDXJ indexes (`20240501123456`). The cache keeps times as seconds since 1970 in a Double;
/// a WARC keeps them to the microsecond.
public struct WARCDate: Sendable, Equatable {
    /// Microseconds since 1970.
    public let microseconds: Int64

    /// The time `seconds` since 1970, to the nearest microsecond.
    public init(seconds: Double) {
        microseconds = Int64((seconds * 1_000_000).rounded())
    }

    public var seconds: Double { Double(microseconds) / 1_000_000 }

    /// `2024-05-01T12:34:56.123456Z`, as `WARC-Date` holds it.
    public var text: String {
        let fraction = String(split.microseconds)
        return "\(fields(separated: true))." + String(repeating: "0", count: 6 - fraction.count) + fraction + "Z"
    }

    /// The whole seconds since 1970 and the microseconds after them, both rounded down, so a
    /// time before 1970 (a year WARC-Date may hold) has its fraction after its second too.
    private var split: (seconds: Int64, microseconds: Int64) {
        let remainder = microseconds % 1_000_000
        return remainder < 0 ? (microseconds / 1_000_000 - 1, remainder + 1_000_000) : (microseconds / 1_000_000, remainder)
    }

    /// `2024-05-01T12:34:56Z`: whole seconds, as WACZ metadata holds them.
    public var secondsText: String { fields(separated: true) + "Z" }

    /// `20240501123456`: the CDXJ timestamp (seconds truncated, as warcio writes it).
    public var timestamp: String { fields(separated: false) }

    private func fields(separated: Bool) -> String {
        var time = time_t(split.seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        // Four digits, as W3C-DTF and CDXJ have it, for the years before 1000 too.
        let digits = String(parts.tm_year + 1900)
        let year = String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        let date = [year, two(parts.tm_mon + 1), two(parts.tm_mday)]
        let clock = [two(parts.tm_hour), two(parts.tm_min), two(parts.tm_sec)]
        return separated
            ? date.joined(separator: "-") + "T" + clock.joined(separator: ":")
            : (date + clock).joined()
    }

    /// Parses a W3C-DTF date as WARC 1.1 allows it: `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, or with a
    /// time `YYYY-MM-DDThh:mm[:ss[.fraction]]Z`; nil when `text` is none of them.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ digits: Int) -> Int? {
            guard index + digits <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<(index + digits)] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            index += digits
            return value
        }
        func separator(_ character: Character) -> Bool {
            guard index < bytes.count, bytes[index] == character.asciiValue else { return false }
            index += 1
            return true
        }
        guard let year = number(4) else { return nil }
        var fields = [year, 1, 1, 0, 0, 0]
        var micros: Int64 = 0
        if separator("-") {
            guard let month = number(2) else { return nil }
            fields[1] = month
            if separator("-") {
                guard let day = number(2) else { return nil }
                fields[2] = day
                if separator("T") {
                    guard let hour = number(2), separator(":"), let minute = number(2) else { return nil }
                    fields[3] = hour
                    fields[4] = minute
                    if separator(":") {
                        guard let second = number(2) else { return nil }
                        fields[5] = second
                        if separator(".") {
                            let digits = bytes[index...].prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
                            guard !digits.isEmpty else { return nil }
                            let padded = (Array(digits.prefix(6)) + Array(repeating: UInt8(ascii: "0"), count: 6)).prefix(6)
                            micros = padded.reduce(0) { $0 * 10 + Int64($1 - UInt8(ascii: "0")) }
                            index += digits.count
                        }
                    }
                    guard separator("Z") else { return nil }
                }
            }
        }
        guard index == bytes.count, (1...12).contains(fields[1]), (1...31).contains(fields[2]), fields[3] < 24,
            fields[4] < 60, fields[5] <= 60
        else { return nil }
        var parts = tm()
        parts.tm_year = Int32(fields[0] - 1900)
        parts.tm_mon = Int32(fields[1] - 1)
        parts.tm_mday = Int32(fields[2])
        parts.tm_hour = Int32(fields[3])
        parts.tm_min = Int32(fields[4])
        parts.tm_sec = Int32(fields[5])
        microseconds = Int64(timegm(&parts)) * 1_000_000 + micros
    }
}
