import MirrorTestSupport
import Testing

/// Requests sent one after another without waiting (HTTP/1.1 pipelining) are answered in
/// order, each whole, whether a response is made at once or by a task; a request that is not
/// HTTP gets a 400 after the answers to those before it, and the connection ends there.
@Suite("mirror serve: pipelined and malformed requests")
struct PipeliningTests {
    @Test(arguments: ServedMirror.Source.allCases)
    func pipelinedRequestsAreAnsweredInOrder(source: ServedMirror.Source) async throws {
        try await ServedMirror.with(source) { mirror in
            let page = try mirror.file(mirror.manifest.path(for: mirror.origin.url("/frame.html"))!)
            let port = mirror.server.port
            let requests = (0..<40).flatMap { round in
                ["GET /frame.html", "GET /media/film.bin", "GET /no/such/page-\(round)", "HEAD /frame.html"]
            }
            let (responses, closed) = try await RawHTTPConnection.run {
                let connection = try RawHTTPConnection(port: port)
                var bytes = requests.map { "\($0) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n" }.joined()
                bytes += "GET /frame.html HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n"
                bytes += "GET /frame.html HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"  // after the close: never answered
                try connection.send(bytes)
                var responses: [RawHTTPResponse] = []
                for request in requests + ["GET /frame.html"] {
                    responses.append(try connection.readResponse(headOnly: request.hasPrefix("HEAD")))
                }
                return (responses, connection.isClosedByServer())
            }
            for (index, request) in requests.enumerated() {
                let response = responses[index]
                switch request {
                case "GET /frame.html":
                    #expect(response.status == 200 && response.body == page, "\(index): \(request)")
                case "GET /media/film.bin":
                    #expect(response.status == 200 && response.body == ServedMirror.binary, "\(index): \(request)")
                case "HEAD /frame.html":
                    #expect(response.status == 200 && response.header("content-length") == "\(page.count)", "\(index): \(request)")
                default:
                    #expect(response.status == 404, "\(index): \(request)")
                }
            }
            #expect(responses.last?.status == 200 && responses.last?.body == page)
            #expect(closed, "nothing is answered after the response that closes")
        }
    }

    @Test func aRequestThatIsNotHTTPGetsA400AndTheEnd() async throws {
        try await ServedMirror.with { mirror in
            let port = mirror.server.port
            let (status, closed) = try await RawHTTPConnection.run {
                let connection = try RawHTTPConnection(port: port)
                try connection.send("NOT\u{1} AN HTTP REQUEST\r\n\r\n")
                return (try connection.readResponse().status, connection.isClosedByServer())
            }
            #expect(status == 400)
            #expect(closed)
        }
    }

    @Test(arguments: ServedMirror.Source.allCases)
    func garbageAfterGoodRequestsIsRefusedAfterTheirAnswers(source: ServedMirror.Source) async throws {
        try await ServedMirror.with(source) { mirror in
            let port = mirror.server.port
            let (statuses, bodies, closed) = try await RawHTTPConnection.run {
                let connection = try RawHTTPConnection(port: port)
                try connection.send(
                    "GET /media/film.bin HTTP/1.1\r\nHost: x\r\n\r\nGET /frame.html HTTP/1.1\r\nHost: x\r\n\r\n"
                        + "\u{0}\u{1}\u{2} garbage\r\n\r\n")
                let responses = try (0..<3).map { _ in try connection.readResponse() }
                return (responses.map(\.status), responses.map(\.body), connection.isClosedByServer())
            }
            #expect(statuses == [200, 200, 400])
            #expect(bodies.first == ServedMirror.binary)
            #expect(closed)
        }
    }
}
