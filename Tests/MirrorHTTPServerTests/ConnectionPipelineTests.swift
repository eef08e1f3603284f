import MirrorCore
import MirrorLock
import MirrorTestSupport
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOSSL
import Testing

@testable import MirrorHTTPServer

/// A connection's pipeline as the server sets it up, fed bytes on a testing channel with its
/// own clock: what goes out, and when the connection ends. No socket is opened.
@Suite("A connection's pipeline", .timeLimit(.minutes(TestTiming.minutes(10))))
struct ConnectionPipelineTests {
    @Test func pipelinedRequestsInOneReadAreAnsweredInOrder() async throws {
        try await withTestConnection { connection in
            try await connection.send(
                "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /slow/b HTTP/1.1\r\nHost: x\r\n\r\nGET /c HTTP/1.1\r\nHost: x\r\n\r\n")
            let output = try await connection.output(until: "answer /c")
            #expect(output.bodies == ["answer /a", "answer /slow/b", "answer /c"], "in the order asked, the slow one too")
            #expect(try await connection.isActive)
        }
    }

    @Test func aResponseThatClosesEndsTheConnectionAndNothingAfterIsAnswered() async throws {
        try await withTestConnection { connection in
            try await connection.send("GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n")
            let output = try await connection.output(until: "answer /a")
            #expect(output.text.contains("connection: close") || output.text.contains("Connection: close"))
            try await connection.closed()
            #expect(!output.text.contains("answer /b"))
        }
    }

    @Test func unreadableBytesGetA400AfterTheRequestsBefore() async throws {
        try await withTestConnection { connection in
            try await connection.send("GET /slow/a HTTP/1.1\r\nHost: x\r\n\r\nNOT HTTP AT ALL\r\n\r\n")
            let output = try await connection.output(until: "400 Bad Request")
            #expect(output.bodies.first == "answer /slow/a")
            #expect(output.text.range(of: "answer /slow/a")!.lowerBound < output.text.range(of: "400 Bad Request")!.lowerBound)
            try await connection.closed()
        }
    }

    @Test func aStreamedBodyCutShortClosesTheConnection() async throws {
        try await withTestConnection { connection in
            try await connection.send("GET /cut HTTP/1.1\r\nHost: x\r\n\r\n")
            try await connection.closed()
            let output = try await connection.output()
            #expect(output.text.contains("Content-Length: 100"))
            #expect(output.text.hasSuffix("the first pieceX"), "what was sent, then nothing that looks like an end")
            #expect(connection.log.lines.first?.contains("/cut 200 16 ") == true, "\(connection.log.lines)")
        }
    }

    @Test func aClientSilentPastTheHeaderTimeoutIsDisconnected() async throws {
        try await withTestConnection { connection in
            try await connection.send("GET /a HTTP/1.1\r\nHost")
            await connection.advance(by: .seconds(29))
            #expect(try await connection.isActive)
            await connection.advance(by: .seconds(2))
            #expect(try await !connection.isActive)
        }
    }

    @Test func anIdleKeptAliveConnectionIsClosedAfterTheHeaderTimeout() async throws {
        try await withTestConnection { connection in
            await connection.advance(by: .seconds(20))
            try await connection.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = try await connection.output(until: "answer /a")
            await connection.advance(by: .seconds(20))
            #expect(try await connection.isActive, "the time counts from the end of the response")
            await connection.advance(by: .seconds(11))
            #expect(try await !connection.isActive)
        }
    }

    @Test func aConnectRequestUpgradesTheConnectionToAnInterceptedTunnel() async throws {
        let authority = try TestCertificateAuthority()
        let identity = try authority.serverIdentity(names: ["example.test"])
        var configuration = ServerConfiguration()
        configuration.tunnelsConnect = true
        configuration.tunnelInterceptor = FixedInterceptor(context: identity.context)
        try await withTestConnection(configuration: configuration) { connection in
            try await connection.send("CONNECT example.test:443 HTTP/1.1\r\nHost: example.test:443\r\n\r\n")
            let output = try await connection.output(until: "\r\n\r\n")
            #expect(output.text.hasPrefix("HTTP/1.1 200 OK\r\n"))
            let handlers = try await connection.handlerNames()
            #expect(handlers.contains { $0.contains("NIOSSLServerHandler") }, "the TLS inside the tunnel is answered here")
            #expect(handlers.contains { $0.contains("InterceptedTarget") })
            #expect(!handlers.contains { $0.contains("ConnectTunnel") }, "its work is done")
            #expect(handlers.filter { $0.contains("ConnectionDeadline") }.count == 1, "one deadline, for the requests inside")
            #expect(connection.log.lines.first?.hasSuffix("intercepted") == true)
        }
    }
}

/// Answers `answer <path>`: at once, or from a task for paths under `/slow/`; `/cut` promises
/// 100 bytes and fails after 16.
private struct TestResponder: HTTPResponder {
    func respondImmediately(to request: ServerRequest) -> ServerResponse? {
        request.path.hasPrefix("/slow/") || request.path == "/cut" ? nil : .text(.ok, "answer \(request.path)")
    }

    func respond(to request: ServerRequest) async -> ServerResponse {
        guard request.path == "/cut" else { return .text(.ok, "answer \(request.path)") }
        return ServerResponse(
            status: .ok, headers: ["Content-Length": "100"],
            body: .stream { writer in
                try await writer.write(ByteBuffer(string: "the first pieceX"))
                throw CancellationError()
            })
    }
}

private struct FixedInterceptor: TunnelInterceptor {
    let context: NIOSSLContext
    func serverContext(forHost host: String) throws -> NIOSSLContext { context }
}

/// The request log's lines.
private final class LogLines: Sendable {
    private let box = Locked<[String]>([])
    var lines: [String] { box.withLock { $0 } }
    func append(_ line: RequestLogLine) { box.withLock { $0.append(line.description) } }
}

/// Runs `body` on a fresh connection, then closes it if it is still open, on every path. Only a
/// close takes the handlers out of the pipeline: a channel left open keeps them in a cycle with
/// it (NIOSSL's handler and its TLS connection among them), which LeakSanitizer reports.
private func withTestConnection(
    configuration: ServerConfiguration = ServerConfiguration(), _ body: (TestConnection) async throws -> Void
) async throws {
    let connection = try await TestConnection(configuration: configuration)
    do {
        try await body(connection)
    } catch {
        await connection.close()
        throw error
    }
    await connection.close()
}

/// A testing channel with the server's pipeline, connected.
private struct TestConnection {
    let channel: NIOAsyncTestingChannel
    let log = LogLines()

    init(configuration: ServerConfiguration = ServerConfiguration()) async throws {
        channel = NIOAsyncTestingChannel()
        let (channel, log) = (channel, log)
        try await channel.testingEventLoop.executeInContext {
            try HTTPServer.serve(
                channel.pipeline.syncOperations, configuration: configuration, responder: TestResponder(),
                log: { log.append($0) })
        }
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).get()
    }

    var isActive: Bool { get async throws { try await channel.testingEventLoop.executeInContext { channel.isActive } } }

    func send(_ text: String) async throws {
        try await channel.writeInbound(ByteBuffer(string: text))
    }

    func advance(by time: TimeAmount) async {
        await channel.testingEventLoop.advanceTime(by: time)
    }

    /// Waits until the connection is closed (a response made by a task closes it later), for
    /// five minutes at most: a full run's busy pool can hold a task that long.
    func closed() async throws {
        let channel = self.channel
        try await withDeadline(.now + .seconds(300), orThrow: { NotClosed() }) { try await channel.closeFuture.get() }
    }

    private struct NotClosed: Error {}

    /// Closes the connection if it is open and runs what the close scheduled. What is left over,
    /// and the errors the close itself raises (TLS cut short), say nothing the tests ask about.
    func close() async {
        _ = try? await channel.finish(acceptAlreadyClosed: true)
    }

    /// What was written so far, or until it contains `marker` (responses made by a task arrive later).
    func output(until marker: String? = nil) async throws -> Output {
        var text = ""
        while true {
            while let data = try await channel.readOutbound(as: IOData.self) {
                guard case .byteBuffer(let buffer) = data else { continue }
                text += String(buffer: buffer)
            }
            guard let marker, !text.contains(marker) else { return Output(text: text) }
            if case .byteBuffer(let buffer) = try await channel.waitForOutboundWrite(as: IOData.self) { text += String(buffer: buffer) }
        }
    }

    /// The pipeline now, a line per handler (with its type).
    func handlerNames() async throws -> [String] {
        await channel.testingEventLoop.run()
        let channel = self.channel
        return try await channel.testingEventLoop.executeInContext {
            channel.pipeline.debugDescription.split(separator: "\n").dropFirst(2).map(String.init)
        }
    }

    struct Output {
        let text: String
        /// The bodies of the responses (each `answer …` as the test responder makes them).
        var bodies: [String] {
            text.components(separatedBy: "\r\n\r\n").dropFirst().map { part in
                part.components(separatedBy: "HTTP/1.1").first ?? part
            }.filter { !$0.isEmpty }
        }
    }
}
