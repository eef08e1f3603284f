#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// HTTP dates (RFC 9110 §5.6.7): written as IMF-fixdate, read in all three
/// historical forms. Whole seconds since the Unix epoch, UTC.
public enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The seconds of the years 0000 to 9999, the times the form can write.
    public static let writableSeconds: ClosedRange<Int64> = -62_167_219_200...253_402_300_799

    /// Formats seconds since the epoch as `Sun, 06 Nov 1994 08:49:37 GMT` (a time outside
    /// `writableSeconds` is taken as its first or last second). Arithmetic only (`civil`),
    /// written byte by byte: a crawl formats every saved response's `Date` and `Last-Modified`
    /// again as it packs them, to check that they read back exactly.
    public static func format(_ seconds: Int64) -> String {
        let seconds = min(max(seconds, writableSeconds.lowerBound), writableSeconds.upperBound)
        let (days, second) = seconds.quotientAndRemainder(dividingBy: 86_400)
        let day = second < 0 ? days - 1 : days
        let secondOfDay = Int(second < 0 ? second + 86_400 : second)
        let (year, month, dayOfMonth) = civil(daysSinceEpoch: day)
        let weekday = Int((day % 7 + 11) % 7)  // 1970-01-01 was a Thursday
        var bytes = [UInt8]()
        bytes.reserveCapacity(29)
        bytes += dayBytes[weekday]
        bytes.append(contentsOf: ", ".utf8)
        append(dayOfMonth, digits: 2, to: &bytes)
        bytes.append(UInt8(ascii: " "))
        bytes += monthBytes[month - 1]
        bytes.append(UInt8(ascii: " "))
        append(year, digits: 4, to: &bytes)
        bytes.append(UInt8(ascii: " "))
        append(secondOfDay / 3600, digits: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        append(secondOfDay / 60 % 60, digits: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        append(secondOfDay % 60, digits: 2, to: &bytes)
        bytes.append(contentsOf: " GMT".utf8)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func append(_ value: Int, digits: Int, to bytes: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<digits { divisor *= 10 }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }

    /// The date of a day counted from 1970-01-01 (month 1...12): Howard Hinnant's
    /// `civil_from_days`, the inverse of `daysSinceEpoch`.
    static func civil(daysSinceEpoch days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0)), Int(month), Int(day))
    }

    private static let longDays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    private static let dayBytes = days.map { Array($0.utf8) }
    private static let longDayBytes = longDays.map { Array($0.utf8) }
    private static let monthBytes = months.map { Array($0.utf8) }

    /// Parses an IMF-fixdate, RFC 850 or asctime date exactly as RFC 9110 writes them (case
    /// and spaces included); nil for anything else, such as a two-digit year without the dashes
    /// of RFC 850 or a one-digit hour (a cache then treats the date as invalid, e.g. an
    /// `Expires` in the past).
    public static func parse(_ text: some StringProtocol) -> Int64? {
        var bytes = Array(text.utf8)[...]
        while let first = bytes.first, first == 0x20 || first == 0x09 { bytes = bytes.dropFirst() }
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes = bytes.dropLast() }
        let trimmed = Array(bytes)
        var reader = Reader(bytes: trimmed)
        if let date = reader.imfFixdate() { return date.seconds }
        reader = Reader(bytes: trimmed)
        if let date = reader.rfc850Date() { return date.seconds }
        reader = Reader(bytes: trimmed)
        return reader.asctimeDate()?.seconds
    }

    private struct Fields {
        var year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0

        var seconds: Int64? {
            guard (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
            else { return nil }
            return (HTTPDate.daysSinceEpoch(year: year, month: month + 1, day: day) * 24 + Int64(hour)) * 3600
                + Int64(minute) * 60 + Int64(second)
        }
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (month 1...12; a day
    /// past the month's end counts on into the next, as `timegm` does). Howard Hinnant's
    /// `days_from_civil`: arithmetic only, where `timegm` takes the C library's time-zone lock.
    public static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Reads one of the three grammars from the start of the bytes to their end.
    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        /// `Sun, 06 Nov 1994 08:49:37 GMT`
        mutating func imfFixdate() -> Fields? {
            var fields = Fields()
            guard name(in: HTTPDate.dayBytes) != nil, literal(", "), let day = digits(2), literal(" "),
                let month = name(in: HTTPDate.monthBytes),
                literal(" "), let year = digits(4), literal(" "), clock(into: &fields), literal(" GMT"), atEnd
            else { return nil }
            (fields.day, fields.month, fields.year) = (day, month, year)
            return fields
        }

        /// `Sunday, 06-Nov-94 08:49:37 GMT`; a two-digit year more than 50 years ahead is of the
        /// century before (RFC 9110 §5.6.7).
        mutating func rfc850Date() -> Fields? {
            var fields = Fields()
            guard name(in: HTTPDate.longDayBytes) != nil, literal(", "), let day = digits(2), literal("-"),
                let month = name(in: HTTPDate.monthBytes),
                literal("-"), let shortYear = digits(2), literal(" "), clock(into: &fields), literal(" GMT"), atEnd
            else { return nil }
            var now = time(nil)
            var parts = tm()
            gmtime_r(&now, &parts)
            let thisYear = Int(parts.tm_year) + 1900
            var year = thisYear / 100 * 100 + shortYear
            if year > thisYear + 50 { year -= 100 }
            (fields.day, fields.month, fields.year) = (day, month, year)
            return fields
        }

        /// `Sun Nov  6 08:49:37 1994`
        mutating func asctimeDate() -> Fields? {
            var fields = Fields()
            guard name(in: HTTPDate.dayBytes) != nil, literal(" "), let month = name(in: HTTPDate.monthBytes), literal(" ") else {
                return nil
            }
            let day = literal(" ") ? digits(1) : digits(2)
            guard let day, literal(" "), clock(into: &fields), literal(" "), let year = digits(4), atEnd else { return nil }
            (fields.day, fields.month, fields.year) = (day, month, year)
            return fields
        }

        /// `08:49:37`
        private mutating func clock(into fields: inout Fields) -> Bool {
            guard let hour = digits(2), literal(":"), let minute = digits(2), literal(":"), let second = digits(2) else { return false }
            (fields.hour, fields.minute, fields.second) = (hour, minute, second)
            return true
        }

        var atEnd: Bool { index == bytes.count }

        private mutating func literal(_ text: StaticString) -> Bool {
            text.withUTF8Buffer { literal($0) }
        }

        private mutating func literal(_ expected: some Collection<UInt8>) -> Bool {
            guard bytes.count - index >= expected.count, bytes[index..<index + expected.count].elementsEqual(expected)
            else { return false }
            index += expected.count
            return true
        }

        /// Exactly `count` ASCII digits.
        private mutating func digits(_ count: Int) -> Int? {
            guard bytes.count - index >= count else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            index += count
            return value
        }

        /// The position in `names` of the one that comes next (names are case-sensitive).
        private mutating func name(in names: [[UInt8]]) -> Int? {
            for (position, candidate) in names.enumerated() where literal(candidate) { return position }
            return nil
        }
    }
}
