import Foundation
public import MirrorCache
import MirrorCore
public import MirrorHTTPServer
import NIOCore
import NIOHTTP1

/// `mirror proxy`: answers each request through the shared cache (record), from it alone
/// (replay) or straight from the network (passthrough), as a reverse proxy for one upstream
/// or a forward proxy for absolute-form requests. Every response says how it was found in
/// `Cache-Status`.
public struct ProxyResponder: HTTPResponder {
    private let configuration: ProxyConfiguration
    private let client: CachingClient
    private let transport: any HTTPTransport

    public init(configuration: ProxyConfiguration, store: CacheStore, transport: any HTTPTransport) {
        self.configuration = configuration
        self.transport = transport
        client = CachingClient(store: store, transport: transport, configuration: configuration.clientConfiguration)
    }

    public func respond(to request: ServerRequest) async -> ServerResponse {
        if request.method == .CONNECT { return refusedTunnel(to: request.head.uri) }
        if ProxyHeaders.hasPassed(request.headers, via: configuration.via) {
            return Self.text(
                .loopDetected, "This request has already passed through this proxy: \(request.head.uri) leads back to it.\n",
                status: CacheStatus(parameters: "detail=loop"), via: configuration.via)
        }
        guard let url = target(of: request.head) else {
            let expected =
                configuration.upstream == nil
                ? "an absolute-form target (http://host/path): this is a forward proxy; set http_proxy to use it"
                : "an origin-form target (/path)"
            return .text(.badRequest, "mirror proxy wants \(expected).\n")
        }
        let headers = ProxyHeaders.request(request.headers, via: configuration.via)
        let body = request.body.map { Array(buffer: $0) }
        let method = Self.forwarded(request.method)
        if configuration.mode == .passthrough {
            return await passThrough(
                TransportRequest(
                    url: url, method: method, headers: headers, body: body,
                    timeout: configuration.cache.timeout))
        }
        return await cached(CacheRequest(url: url, method: method, headers: headers, body: body), for: request)
    }

    /// The method as the upstream must read it: NIOHTTP1 reads `M-SEARCH` as `.MSEARCH` but
    /// would write that as `MSEARCH`, which servers refuse.
    private static func forwarded(_ method: HTTPMethod) -> HTTPMethod {
        method == .MSEARCH ? .RAW(value: "M-SEARCH") : method
    }

    /// The absolute URL a request is for: the upstream's, or the forward proxy's absolute-form target.
    private func target(of head: HTTPRequestHead) -> String? {
        if let upstream = configuration.upstream {
            return head.uri.hasPrefix("/") ? upstream + head.uri : nil
        }
        return URLParts(head.uri) == nil ? nil : head.uri
    }

    // MARK: Through the cache

    private func cached(_ original: CacheRequest, for request: ServerRequest) async -> ServerResponse {
        var outgoing = original
        let isRead = request.method == .GET || request.method == .HEAD
        // The proxy answers conditions and ranges itself from the whole stored 200, so what it stores is that 200.
        if isRead { for name in ProxyHeaders.evaluatedLocally { outgoing.headers.remove(name: name) } }
        var response: CacheResponse
        let status: CacheStatus
        do {
            response = try await client.fetch(outgoing)
            status = CacheStatus(response, method: request.method.rawValue)
            if isRead && !response.body.lengthIsKnown && request.headers.contains(name: "range") {
                // A range needs the whole length: once the download is stored, answer from the stored response.
                try await response.body.arrival()
                response = try await client.fetch(outgoing)
            }
        } catch {
            return Self.failure(error, url: original.url, via: configuration.via)
        }
        return answer(response, status: status, to: request, url: original.url)
    }

    /// The client's response from the cache's: a replay miss, or the response with the client's
    /// conditions and range applied (GET and HEAD of a 200), its body from memory or streamed.
    private func answer(_ response: CacheResponse, status: CacheStatus, to request: ServerRequest, url: String) -> ServerResponse {
        if response.outcome == .offlineMiss && configuration.mode == .replay {
            return replayMiss(url)
        }
        var headers = ProxyHeaders.response(response.headers, setCookies: response.setCookies, via: configuration.via, status: status)
        var code = HTTPResponseStatus(statusCode: response.status)
        var selected = 0..<(response.body.lengthIsKnown ? response.body.count : Int.max)
        var conditions = request.headers
        if request.method == .GET {
            if response.body.lengthIsKnown {
                headers.replaceOrAdd(name: "Content-Length", value: String(response.body.count))
            } else {
                // Still arriving at an unknown length: the whole body, as it comes (a range may be ignored).
                headers.remove(name: "content-length")
                conditions.remove(name: "range")
            }
        }
        if (request.method == .GET || request.method == .HEAD) && response.status == 200 {
            let representation = Representation(
                size: response.body.count, etag: headers.first(name: "etag"),
                lastModified: headers.first(name: "last-modified").flatMap(HTTPDate.parse))
            switch representation.answer(method: request.method, headers: conditions) {
            case .full:
                break
            case .notModified:
                headers.remove(name: "content-length")
                return ServerResponse(status: .notModified, headers: headers, logNote: status.parameters)
            case .preconditionFailed:
                return Self.text(
                    .preconditionFailed, "The precondition does not hold for \(url).\n", status: status,
                    via: configuration.via)
            case .unsatisfiable:
                var refusal = Self.text(
                    .rangeNotSatisfiable, "The range is outside the \(selected.count) bytes of \(url).\n",
                    status: status, via: configuration.via)
                refusal.headers.add(name: "Content-Range", value: Representation.contentRange(nil, of: selected.count))
                return refusal
            case .partial(let part):
                headers.replaceOrAdd(name: "Content-Range", value: Representation.contentRange(part, of: selected.count))
                headers.replaceOrAdd(name: "Content-Length", value: String(part.count))
                code = .partialContent
                selected = part
            }
        }
        return ServerResponse(status: code, headers: headers, body: .cached(response.body, range: selected), logNote: status.parameters)
    }

    private func replayMiss(_ url: String) -> ServerResponse {
        let status = HTTPResponseStatus(statusCode: configuration.missStatus)
        var response = Self.text(
            status, "Not recorded, and mirror proxy is replaying: \(url)\n", status: .replayMiss,
            via: configuration.via)
        response.logNote = CacheStatus.replayMiss.parameters
        return response
    }

    /// CONNECT when the server does not tunnel it (`ProxyConfiguration.tunnelsConnect`). The reason
    /// phrase says why: NIOHTTP1 sends no body in a CONNECT response.
    private func refusedTunnel(to authority: String) -> ServerResponse {
        let replaying = configuration.mode == .replay
        let reason = (replaying ? "Replaying, no connection to " : "A reverse proxy does not tunnel to ") + authority
        let status = replaying ? CacheStatus.replayMiss : CacheStatus(parameters: "fwd=method")
        var headers = ProxyHeaders.response([:], via: configuration.via, status: status)
        headers.add(name: "Connection", value: "close")
        return ServerResponse(
            status: .custom(
                code: replaying ? UInt(configuration.missStatus) : 405, reasonPhrase: reason.filter { $0.isASCII && !$0.isNewline }),
            headers: headers, logNote: "tunnel-refused")
    }

    // MARK: Around the cache

    private func passThrough(_ request: TransportRequest) async -> ServerResponse {
        let response: TransportResponse
        do {
            response = try await transport.send(request)
        } catch {
            return Self.failure(error, url: request.url, via: configuration.via)
        }
        let headers = ProxyHeaders.response(
            response.headers, setCookies: response.headers["set-cookie"], via: configuration.via,
            status: .passthrough)
        let body = response.body
        return ServerResponse(
            status: HTTPResponseStatus(statusCode: response.status), headers: headers,
            body: .stream { writer in
                for try await chunk in body { try await writer.write(ByteBuffer(bytes: chunk)) }
            }, logNote: CacheStatus.passthrough.parameters)
    }

    /// A 502 that says why the upstream could not be used (a certificate in plain words, a refused connection…).
    private static func failure(_ error: any Error, url: String, via: String) -> ServerResponse {
        var response = text(
            .badGateway, "mirror proxy could not get \(url): \(error)\n",
            status: CacheStatus(parameters: "fwd=uri-miss; detail=error"), via: via)
        response.logNote = "error"
        return response
    }

    private static func text(_ code: HTTPResponseStatus, _ message: String, status: CacheStatus, via: String) -> ServerResponse {
        var response = ServerResponse.text(code, message)
        response.headers = ProxyHeaders.response(response.headers, via: via, status: status)
        return response
    }
}
