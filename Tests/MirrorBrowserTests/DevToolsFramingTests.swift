import Testing

@testable import MirrorBrowser

/// The DevTools pipe's stream cut into its messages: the bytes between NULs, whatever the reads
/// that brought them (the `devtools` fuzz target holds it to that for any bytes).
@Suite("DevTools messages framed")
struct DevToolsFramingTests {
    static let stream = Array("{\"id\":1,\"result\":{}}\0{\"method\":\"Page.loadEventFired\",\"params\":{}}\0\0{\"id\":2".utf8)

    @Test func everyCutGivesTheSameMessages() {
        let expected = [Array("{\"id\":1,\"result\":{}}".utf8), Array("{\"method\":\"Page.loadEventFired\",\"params\":{}}".utf8), []]
        for cut in 0...Self.stream.count {
            var framing = DevToolsFraming()
            var messages: [[UInt8]] = []
            framing.feed(Self.stream[..<cut]) { messages.append(Array($0)) }
            framing.feed(Self.stream[cut...]) { messages.append(Array($0)) }
            #expect(messages == expected, "cut at \(cut)")
        }
        var byteByByte = DevToolsFraming()
        var messages: [[UInt8]] = []
        for index in Self.stream.indices { byteByByte.feed(Self.stream[index...index]) { messages.append(Array($0)) } }
        #expect(messages == expected)
    }
}
