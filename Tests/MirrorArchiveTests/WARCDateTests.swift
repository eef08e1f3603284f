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
}
