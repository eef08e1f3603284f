import MirrorCore

/// The lenient cookie-date algorithm of RFC 6265bis §5.1.1, which reads the dates servers really
/// send in `Expires` (`Wed, 09-Jun-2021 10:18:14 GMT`, two-digit years, missing weekdays) where
/// the strict HTTP date grammar of `HTTPDate.parse` gives up.
enum CookieDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Seconds since 1970, UTC; nil when the text holds no valid date.
    static func parse(_ text: some StringProtocol) -> Double? {
        var time: (hour: Int, minute: Int, second: Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        for token in text.utf8.split(whereSeparator: isDelimiter) {
            let token = Array(token)
            if time == nil, let found = parseTime(token) {
                time = found
            } else if day == nil, let found = leadingNumber(token, digits: 1...2) {
                day = found
            } else if month == nil, let found = parseMonth(token) {
                month = found
            } else if year == nil, let found = leadingNumber(token, digits: 2...4) {
                year = found
            }
        }
        guard var year, let month, let day, let time else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard year >= 1601, day <= daysIn(month: month, year: year), day >= 1, time.hour <= 23, time.minute <= 59, time.second <= 59
        else { return nil }
        let days = HTTPDate.daysSinceEpoch(year: year, month: month, day: day)
        return Double(days * 86_400 + Int64(time.hour * 3600 + time.minute * 60 + time.second))
    }

    /// %x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte) || (0x5B...0x60).contains(byte)
            || (0x7B...0x7E).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    /// `digits` digits at the start of `token`, then a non-digit or the end.
    private static func leadingNumber(_ token: some Collection<UInt8>, digits: ClosedRange<Int>) -> Int? {
        let number = token.prefix(while: isDigit)
        guard digits.contains(number.count) else { return nil }
        return number.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// `hms-time`: 1*2DIGIT ":" 1*2DIGIT ":" 1*2DIGIT, then a non-digit or the end.
    private static func parseTime(_ token: [UInt8]) -> (hour: Int, minute: Int, second: Int)? {
        let parts = token.split(separator: UInt8(ascii: ":"), maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].allSatisfy(isDigit), parts[1].allSatisfy(isDigit),
            let hour = leadingNumber(parts[0], digits: 1...2), let minute = leadingNumber(parts[1], digits: 1...2),
            let second = leadingNumber(parts[2], digits: 1...2)
        else { return nil }
        return (hour, minute, second)
    }

    /// A month's first three letters, any case, then anything (1...12).
    private static func parseMonth(_ token: [UInt8]) -> Int? {
        guard token.count >= 3 else { return nil }
        let name = String(decoding: token.prefix(3), as: UTF8.self).lowercased()
        return months.firstIndex(of: name).map { $0 + 1 }
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
