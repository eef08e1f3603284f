import MirrorTestSupport
import Testing

@Suite("ClosedPort")
struct ClosedPortTests {
    @Test func refusesConnectionsWhileHeld() async throws {
        try await ClosedPort.with { port in
            #expect(port > 0)
            let refused = try await RawHTTPConnection.run { () -> String? in
                do {
                    _ = try RawHTTPConnection(port: port, timeout: 5)
                    return nil
                } catch { return "\(error)" }
            }
            #expect(refused?.contains("refused") == true, "\(refused ?? "connected")")
        }
    }
}
