import MirrorArchive
import Testing

@Suite("WARC dates")
struct WARCDateTests {
    @Test func formatsAndParsesMicroseconds() throws {
        let date = WARCDate(seconds: 1_714_567_890.123456)
        #expect(date.text == "2024-05-01T12:51:30.123456Z")
        #expect(date.timestamp == "20240501125130")
        #expect(WARCDate(date.text) == date)
        #expect(WARCDate("2024-05-01")?.text == "2024-05-01T00:00:00.000000Z")
        #expect(WARCDate("2024-05-01T12:51:30Z")?.timestamp == "20240501125130")
        #expect(WARCDate("2024-05-01T12:51:30.1Z")?.microseconds == date.microseconds - 23456)
        #expect(WARCDate("yesterday") == nil)
    }

    /// Found by fuzzing (`mirror-fuzz warc`): a date before 1970 has a negative count of
    /// microseconds, whose fraction was formatted with a minus sign (and a negative count of
    /// padding zeros, which trapped); a year before 1000 lost its leading zeros.
    @Test func datesBefore1970AndBeforeYear1000FormatAndReadBack() throws {
        let date = try #require(WARCDate("1969-12-31T23:59:59.5Z"))
        #expect(date.microseconds == -500_000)
        #expect(date.text == "1969-12-31T23:59:59.500000Z")
        #expect(date.secondsText == "1969-12-31T23:59:59Z")
        #expect(date.timestamp == "19691231235959")
        let old = try #require(WARCDate("0999-05-01T12:00Z"))
        #expect(old.text == "0999-05-01T12:00:00.000000Z")
        #expect(WARCDate(old.text) == old)
        #expect(WARCDate(seconds: -0.000001).text == "1969-12-31T23:59:59.999999Z")
    }
}
