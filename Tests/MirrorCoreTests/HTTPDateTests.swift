import MirrorCore
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("HTTP dates (RFC 9110 §5.6.7)")
struct HTTPDateTests {
    // Sun, 06 Nov 1994 08:49:37 GMT, the RFC's own example.
    let example: Int64 = 784_111_777

    @Test func formatsIMFFixdate() {
        #expect(HTTPDate.format(example) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
    }

    /// The arithmetic formatting writes what the C library's calendar gives, over four
    /// centuries and at their edges.
    @Test func formatsAsTheCLibraryDoes() {
        var random = SystemRandomNumberGenerator()
        let edges: [Int64] = [-1, 0, 86_399, 86_400, 951_782_400, 4_107_542_399, -2_208_988_800, 253_402_300_799]
        for seconds in edges + (0..<5000).map({ _ in Int64.random(in: -2_208_988_800...7_258_118_400, using: &random) }) {
            var time = time_t(seconds)
            var parts = tm()
            gmtime_r(&time, &parts)
            var buffer = [CChar](repeating: 0, count: 64)
            let count = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
            let expected = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            #expect(HTTPDate.format(seconds) == expected, "\(seconds)")
        }
        #expect(HTTPDate.format(.max) == "Fri, 31 Dec 9999 23:59:59 GMT")
        #expect(HTTPDate.format(.min) == "Sat, 01 Jan 0000 00:00:00 GMT")
    }

    @Test(arguments: ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"])
    func parsesAllThreeForms(text: String) {
        #expect(HTTPDate.parse(text) == example)
    }

    /// The calendar arithmetic agrees with the C library over four centuries, leap days included,
    /// and counts a day past the month's end on into the next, as `timegm` does.
    @Test func readsWhatItWritesAndAgreesWithTimegm() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<5000 {
            let seconds = Int64.random(in: -2_208_988_800...7_258_118_400, using: &random)  // 1900 to 2200
            #expect(HTTPDate.parse(HTTPDate.format(seconds)) == seconds, "\(HTTPDate.format(seconds))")
        }
        for (text, year, month, day) in [
            ("Thu, 29 Feb 2024 12:00:00 GMT", 2024, 1, 29), ("Mon, 31 Feb 2023 12:00:00 GMT", 2023, 1, 31),
            ("Sat, 31 Jun 2001 23:59:60 GMT", 2001, 5, 31),
        ] {
            var parts = tm()
            (parts.tm_year, parts.tm_mon, parts.tm_mday) = (Int32(year - 1900), Int32(month), Int32(day))
            (parts.tm_hour, parts.tm_min, parts.tm_sec) = text.contains("23:59:60") ? (23, 59, 60) : (12, 0, 0)
            #expect(HTTPDate.parse(text) == Int64(timegm(&parts)), "\(text)")
        }
    }

    /// Near misses that lenient parsers take (the HTTP caching tests' invalid Expires values).
    @Test(arguments: [
        "", "0", "-1", "tomorrow", "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49 GMT",
        "Thu, 18 Aug 50 02:01:18 GMT", "Thu 18 Aug 2050 02:01:18 GMT", "Thu, 18  Aug 2050 02:01:18 GMT",
        "Thu, 18-Aug-2050 02:01:18 GMT", "Thu, 18 Aug 2050 2:01:18 GMT", "thu, 18 aug 2050 02:01:18 gmt",
        "Thu, 18 Aug 2050 02:01:18 GMT, Thu, 18 Aug 2050 02:01:18 GMT", "Thu, 18 Aug 2050 02:01:18 UTC",
    ])
    func rejectsInvalidDates(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    /// RFC 850's two-digit year: the most recent year with those digits, unless that is more
    /// than 50 years ahead.
    @Test func twoDigitYearsAreOfTheNearestCentury() {
        #expect(HTTPDate.parse("Thursday, 18-Aug-50 02:01:18 GMT") == HTTPDate.parse("Thu, 18 Aug 2050 02:01:18 GMT"))
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == example)
    }

    @Test func roundTrips() {
        for seconds in stride(from: Int64(0), to: 4_000_000_000, by: 12_345_677) {
            #expect(HTTPDate.parse(HTTPDate.format(seconds)) == seconds)
        }
    }
}
