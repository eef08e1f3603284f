import MirrorCore
import Testing

@Suite("HTTP dates (RFC 9110 §5.6.7)")
struct HTTPDateTests {
    // Sun, 06 Nov 1994 08:49:37 GMT, the RFC's own example.
    let example: Int64 = 784_111_777

    @Test func formatsIMFFixdate() {
        #expect(HTTPDate.format(example) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
    }

    @Test(arguments: ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"])
    func parsesAllThreeForms(text: String) {
        #expect(HTTPDate.parse(text) == example)
    }

    /// Near misses that lenient parsers take (the HTTP caching tests' invalid Expires values).
    @Test(arguments: ["", "0", "-1", "tomorrow", "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49 GMT",
                      "Thu, 18 Aug 50 02:01:18 GMT", "Thu 18 Aug 2050 02:01:18 GMT", "Thu, 18  Aug 2050 02:01:18 GMT",
                      "Thu, 18-Aug-2050 02:01:18 GMT", "Thu, 18 Aug 2050 2:01:18 GMT", "thu, 18 aug 2050 02:01:18 gmt",
                      "Thu, 18 Aug 2050 02:01:18 GMT, Thu, 18 Aug 2050 02:01:18 GMT", "Thu, 18 Aug 2050 02:01:18 UTC"])
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
