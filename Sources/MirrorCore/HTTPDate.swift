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

    /// Formats seconds since the epoch as `Sun, 06 Nov 1994 08:49:37 GMT`.
    public static func format(_ seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    /// Parses an IMF-fixdate, RFC 850 or asctime date; nil when it is none of them
    /// (a cache then treats the date as invalid, e.g. an `Expires` in the past).
    public static func parse(_ text: some StringProtocol) -> Int64? {
        let tokens = String(text).split(whereSeparator: { $0 == " " || $0 == "," || $0 == "-" }).map(String.init)
        // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT   → [Sun, 06, Nov, 1994, 08:49:37, GMT]
        // RFC 850:     Sunday, 06-Nov-94 08:49:37 GMT  → [Sunday, 06, Nov, 94, 08:49:37, GMT]
        // asctime:     Sun Nov  6 08:49:37 1994        → [Sun, Nov, 6, 08:49:37, 1994]
        let day: Int?, month: Int?, year: Int?, clock: String
        if tokens.count == 6, tokens[5] == "GMT" {
            day = Int(tokens[1]); month = months.firstIndex(of: tokens[2]); year = Int(tokens[3]); clock = tokens[4]
        } else if tokens.count == 5 {
            month = months.firstIndex(of: tokens[1]); day = Int(tokens[2]); clock = tokens[3]; year = Int(tokens[4])
        } else {
            return nil
        }
        let hms = clock.split(separator: ":").compactMap { Int($0) }
        guard let day, let month, var year, hms.count == 3, (1...31).contains(day),
              (0...23).contains(hms[0]), (0...59).contains(hms[1]), (0...60).contains(hms[2]) else { return nil }
        if year < 100 { year += year < 70 ? 2000 : 1900 }  // RFC 850 two-digit years
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hms[0])
        parts.tm_min = Int32(hms[1])
        parts.tm_sec = Int32(hms[2])
        return Int64(timegm(&parts))
    }
}
