import Foundation
import MirrorCache
import MirrorCore
import NIOHTTP1

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One task's load through the cache: its request in the engine's terms, the redirects it
/// follows, and the response and body told to the URLSession client. Unchecked: the task and
/// the protocol are Foundation's classes, not Sendable; the load reads the task's delegate and
/// hands every client call to the session's work queue, as Foundation's own protocols do.
struct ProtocolLoad: @unchecked Sendable {
    let request: URLRequest
    let task: URLSessionTask
    let cache: MirrorURLCache
    let listener: MirrorURLProtocol
    let introspection: TaskIntrospection

    /// URLSession's limit of redirects followed for one task; one more fails it
    /// (`URLError.httpTooManyRedirects`).
    static let maxRedirects = 16

    init(request: URLRequest, task: URLSessionTask, cache: MirrorURLCache, listener: MirrorURLProtocol) {
        self.request = request
        self.task = task
        self.cache = cache
        self.listener = listener
        introspection = TaskIntrospection(task)
    }

    func run() async {
        do {
            var current = request
            for hop in 0... {
                let (response, head) = try await fetch(current)
                if let next = redirect(from: current, response: head) {
                    guard hop < Self.maxRedirects else {
                        throw URLError(.httpTooManyRedirects, userInfo: [NSURLErrorFailingURLErrorKey: head.url as Any])
                    }
                    if let followed = await decide(next, after: head) {
                        current = followed
                        continue
                    }
                }
                try await deliver(response, head: head, method: current.httpMethod ?? "GET")
                return
            }
        } catch is CancellationError {
            // The task was cancelled: Foundation has ended it.
        } catch {
            await tell { $0.urlProtocol($1, didFailWithError: error) }
        }
    }

    /// Tells the URLSession client, on the session's work queue.
    private func tell(_ message: @escaping (any URLProtocolClient, URLProtocol) -> Void) async {
        await listener.tell(on: introspection.workQueue, message)
    }

    // MARK: The request

    private func fetch(_ urlRequest: URLRequest) async throws -> (CacheResponse, HTTPURLResponse) {
        guard let url = urlRequest.url else { throw URLError(.badURL) }
        let mode = try RequestMode(cache.mode, policy: urlRequest.cachePolicy, url: url).cacheMode
        var headers = HTTPHeaders()
        for (name, value) in urlRequest.allHTTPHeaderFields ?? [:] { headers.add(name: name, value: value) }
        let configuration = introspection.session?.configuration
        for case (let name as String, let value as String) in configuration?.httpAdditionalHeaders ?? [:]
        where !headers.contains(name: name) {
            headers.add(name: name, value: value)
        }
        if let cookies = cookieStorage(for: urlRequest), !headers.contains(name: "cookie"),
            let stored = cookies.cookies(for: url), !stored.isEmpty
        {
            for (name, value) in HTTPCookie.requestHeaderFields(with: stored) { headers.add(name: name, value: value) }
        }
        let method = HTTPMethod(rawValue: urlRequest.httpMethod ?? "GET")
        let cacheRequest = CacheRequest(
            url: url.absoluteString, method: method, headers: headers, body: try body(of: urlRequest), mode: mode)
        let response = try await cache.client.fetch(cacheRequest)
        try Task.checkCancellation()
        if response.outcome == .offlineMiss { throw RequestMode.miss(url, recording: cache.mode) }
        if let cookies = cookieStorage(for: urlRequest), !response.setCookies.isEmpty {
            let received = response.setCookies.flatMap { HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": $0], for: url) }
            cookies.setCookies(received, for: url, mainDocumentURL: urlRequest.mainDocumentURL)
        }
        return (response, try Self.head(of: response, url: url))
    }

    /// The session's cookie store, when the session and the request let cookies be handled.
    private func cookieStorage(for request: URLRequest) -> HTTPCookieStorage? {
        guard let configuration = introspection.session?.configuration, configuration.httpShouldSetCookies,
            request.httpShouldHandleCookies
        else { return nil }
        return configuration.httpCookieStorage
    }

    /// The bytes a request uploads: the task's body (an upload task's is not in its request),
    /// else the request's body or stream. A redirect turned into a GET uploads nothing.
    private func body(of request: URLRequest) throws -> [UInt8]? {
        if let body = request.httpBody { return [UInt8](body) }
        if let stream = request.httpBodyStream { return try Self.read(stream) }
        guard request.httpMethod.map({ !["GET", "HEAD"].contains($0) }) ?? false else { return nil }
        switch introspection.upload {
        case .bytes(let bytes): return bytes
        case .file(let url):
            guard let bytes = try FileReading.contents(of: url.path) else { throw URLError(.fileDoesNotExist) }
            return bytes
        case .stream(let stream): return try Self.read(stream)
        case nil: return nil
        }
    }

    private static func read(_ stream: InputStream) throws -> [UInt8] {
        stream.open()
        defer { stream.close() }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count < 0 { throw stream.streamError ?? URLError(.cannotDecodeContentData) }
            if count == 0 { return bytes }
            bytes += buffer[..<count]
        }
    }

    /// The response head as URLSession gives it: one field a name, repeated ones joined.
    private static func head(of response: CacheResponse, url: URL) throws -> HTTPURLResponse {
        var fields: [String: String] = [:]
        for (name, value) in response.headers { fields[name] = fields[name].map { $0 + ", " + value } ?? value }
        if !response.setCookies.isEmpty { fields["Set-Cookie"] = response.setCookies.joined(separator: ", ") }
        guard let head = HTTPURLResponse(url: url, statusCode: response.status, httpVersion: "HTTP/1.1", headerFields: fields)
        else { throw URLError(.badServerResponse) }
        return head
    }

    // MARK: Redirects

    /// The request a redirect leads to (`Redirect`: the method, the body and the credentials
    /// that go with it).
    private func redirect(from request: URLRequest, response: HTTPURLResponse) -> URLRequest? {
        guard let from = request.url,
            let redirect = Redirect(
                status: response.statusCode, location: response.value(forHTTPHeaderField: "Location"), from: from.absoluteString,
                method: HTTPMethod(rawValue: request.httpMethod ?? "GET")),
            let target = URL(string: redirect.url)
        else { return nil }
        var next = request
        next.url = target
        next.httpMethod = redirect.method.rawValue
        if !redirect.keepsBody {
            next.httpBody = nil
            next.httpBodyStream = nil
        }
        for name in redirect.droppedHeaders { next.setValue(nil, forHTTPHeaderField: name) }
        return next
    }

    /// What the task's delegate makes of a redirect (the request to follow, or nil to stop at
    /// the redirect); without a delegate, the redirect is followed.
    private func decide(_ next: URLRequest, after response: HTTPURLResponse) async -> URLRequest? {
        guard let session = introspection.session, let delegate = task.delegate else { return next }
        let task = self.task
        return await withCheckedContinuation { continuation in
            session.delegateQueue.addOperation {
                delegate.urlSession(session, task: task, willPerformHTTPRedirection: response, newRequest: next) {
                    continuation.resume(returning: $0)
                }
            }
        }
    }

    // MARK: The body

    private func deliver(_ response: CacheResponse, head: HTTPURLResponse, method: String) async throws {
        await tell { $0.urlProtocol($1, didReceive: head, cacheStoragePolicy: .notAllowed) }
        if method != "HEAD" {
            if introspection.dataGoesToDelegate {
                for try await piece in response.body.chunks() {
                    try Task.checkCancellation()
                    let data = Data(piece)
                    await tell { $0.urlProtocol($1, didLoad: data) }
                }
            } else {
                var whole = Data(capacity: response.body.lengthIsKnown ? response.body.count : 0)
                for try await piece in response.body.chunks(chunkSize: 1 << 20) {
                    try Task.checkCancellation()
                    whole.append(contentsOf: piece)
                }
                let body = whole
                await tell { $0.urlProtocol($1, didLoad: body) }
            }
        }
        await tell { $0.urlProtocolDidFinishLoading($1) }
    }
}
