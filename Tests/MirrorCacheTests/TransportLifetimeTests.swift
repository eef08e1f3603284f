import MirrorCache
import MirrorHTTP
import MirrorTestSupport
import Testing

/// A transport's life ends cleanly however its owner leaves.
@Suite struct TransportLifetimeTests {
    /// Dropped after a request without `shutdown()` (as a test that fails before its cleanup
    /// does), the transport goes away and its client shuts down by itself: in a debug build,
    /// async-http-client would otherwise stop the whole process at the client's deinit.
    @Test func aTransportDroppedWithoutShutdownShutsItsClientDown() async throws {
        try await TestOrigin.with { origin in
            origin.route("/") { _ in .html("ok") }
            var transport: AsyncHTTPClientTransport? = AsyncHTTPClientTransport()
            weak let dropped = transport
            let response = try await transport!.send(TransportRequest(url: origin.url("/")))
            #expect(response.status == 200)
            for try await _ in response.body {}
            transport = nil
            #expect(dropped == nil)
            // The client's shutdown and deinit finish on other threads; a new transport works after.
            try await Task.sleep(for: .seconds(1))
            let next = AsyncHTTPClientTransport()
            let again = try await next.send(TransportRequest(url: origin.url("/")))
            #expect(again.status == 200)
            for try await _ in again.body {}
            try await next.shutdown()
        }
    }
}
