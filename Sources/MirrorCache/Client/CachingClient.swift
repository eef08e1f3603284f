public import Logging
import MirrorCompression
import MirrorCore
import MirrorLock
import NIOHTTP1

/// The one way mirror makes HTTP requests: every request goes through the cache.
///
/// - Fresh stored responses are served without the network; stale ones are validated
///   with a conditional request, and a 304 refreshes the stored headers (RFC 9111).
/// - Concurrent requests for the same resource make one origin request (single-flight).
/// - Bodies stream to disk while hashed, so a large file never sits in memory.
/// - Content-Encoding (gzip, deflate) is decoded with a size limit against gzip bombs;
///   callers always see identity bodies.
/// - Redirects are returned, not followed: the caller scope-checks every hop.
public final class CachingClient: Sendable {
    public let store: CacheStore
    public let configuration: Configuration
    private let transport: any HTTPTransport
    private let flights = SingleFlight<CacheResponse>()
    /// Responses streaming into the store, by flight key: requests that come once the flight
    /// has its head, and before the body is stored, read the same download.
    private let liveDownloads = Locked<[String: CacheResponse]>([:])
    private let logger: Logger

    public init(
        store: CacheStore, transport: any HTTPTransport, configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "mirror.cache")
    ) {
        self.store = store
        self.transport = transport
        self.configuration = configuration
        self.logger = logger
    }

    /// The transport's executors near its connections (`HTTPTransport.nearbyExecutors`).
    public var nearbyExecutors: [any TaskExecutor] { transport.nearbyExecutors }

    private var policy: CachePolicy { configuration.policy }
    private func now() -> Double { store.configuration.now() }

    /// Answers `request` from the cache or the network, storing what may be stored.
    public func fetch(_ original: CacheRequest) async throws -> CacheResponse {
        var request = original
        for (name, value) in configuration.defaultHeaders where !request.headers.contains(name: name) {
            request.headers.add(name: name, value: value)
        }
        guard let url = URLParts(request.url) else { throw CachingClientError.invalidURL(request.url) }
        request.url = url.normalized
        let mode = mode(of: request)
        guard mode != .bypass, configuration.admission.admits(url: url, method: request.method, headers: request.headers) else {
            return try await bypass(request)
        }
        if mode == .offline && request.method == .HEAD { request.method = .GET }
        let filed = configuration.admission.cacheKey(url)
        let key = CacheKey(
            url: filed,
            flight: "\(request.method.rawValue) \(filed) \(request.credentials ?? "") \(request.mode.map { "\($0)" } ?? "")\n"
                + request.headers.map { "\($0.name.lowercased()):\($0.value)" }.sorted().joined(separator: "\n"))
        if var live = liveDownloads.withLock({ $0[key.flight] }) {
            live.collapsed = true
            live.setCookies = []  // a session handed to the request that caused the exchange, not to this one
            return live
        }
        // A stored response that needs no exchange with the origin is answered here, outside the
        // single flight: that is for requests that go to the network, and would cost a task per hit.
        let stored = try storedCandidate(for: request, key: key, mode: mode)
        if let stored, let response = reusable(stored, for: request, key: key) { return response }
        let admitted = request
        var (response, joined) = try await flights.run(key: key.flight) {
            try await self.answer(admitted, key: key, stored: stored)
        }
        response.collapsed = joined
        if joined { response.setCookies = [] }
        return response
    }

    // MARK: The cached path

    /// What a request is filed under: the URL without ignored parameters (`AdmissionRules.cacheKey`),
    /// and the key of its single flight (method, that URL and the request's headers).
    private struct CacheKey {
        let url: String
        let flight: String
    }

    /// The stored response for a request, and what the policy decided about using it.
    private struct StoredCandidate {
        let entry: CacheEntry
        let decision: ReuseDecision
    }

    /// The stored response when it may be used without the origin: fresh, allowed stale, or stale
    /// while it is revalidated in the background. Nil when the origin must be asked, or the body is damaged.
    private func reusable(_ stored: StoredCandidate, for request: CacheRequest, key: CacheKey) -> CacheResponse? {
        let entry = stored.entry
        if let since = request.reuseStoredSince, entry.head.responseTime >= since,
            let response = fromStore(entry, age: policy.currentAge(entry.head, now: now()), outcome: .hit, for: request)
        {
            return response
        }
        switch stored.decision {
        case .serve(let age, let stale):
            return fromStore(entry, age: age, outcome: stale ? .staleHit : .hit, for: request)
        case .serveWhileRevalidating(let age):
            let response = fromStore(entry, age: age, outcome: .staleHit, for: request)
            if response != nil && networkAllowed(for: request) {
                revalidateInBackground(entry, for: request, key: key)
            }
            return response
        case .unsatisfiable, .validate:
            return nil
        }
    }

    /// A request that `reusable` could not answer from `stored` (looked up before the flight).
    private func answer(_ request: CacheRequest, key: CacheKey, stored: StoredCandidate?) async throws -> CacheResponse {
        let networkAllowed = networkAllowed(for: request)
        if let stored {
            switch stored.decision {
            case .unsatisfiable:
                return Self.gatewayTimeout(request.url)
            case .validate:
                if networkAllowed { return try await validate(stored.entry, for: request, key: key) }
            case .serve, .serveWhileRevalidating:
                break  // its body was damaged (and the entry dropped)
            }
        }
        guard networkAllowed else { return Self.gatewayTimeout(request.url) }
        return try await fetchFromOrigin(request, key: key)
    }

    private func networkAllowed(for request: CacheRequest) -> Bool {
        mode(of: request) != .offline && !CacheControl(request.headers, isRequest: true).onlyIfCached
    }

    private func mode(of request: CacheRequest) -> CacheMode { request.mode ?? configuration.mode }

    /// The stored response for `request` and what the policy decides about it; none in `.reload`.
    private func storedCandidate(for request: CacheRequest, key: CacheKey, mode: CacheMode) throws -> StoredCandidate? {
        guard mode != .reload else { return nil }
        return try store.entry(for: key.url, request: request.headers, credentials: request.credentials).map { entry in
            StoredCandidate(entry: entry, decision: policy.reuse(entry.head, request: request.headers, now: now(), mode: mode))
        }
    }

    /// Sends a conditional request for a stored response and handles 304, a new response, or failure.
    private func validate(_ stored: CacheEntry, for request: CacheRequest, key: CacheKey) async throws -> CacheResponse {
        var conditional = request
        if policy.hasValidators(stored.head) {
            conditional.method = .GET
            for (name, value) in policy.validators(for: stored.head) { conditional.headers.replaceOrAdd(name: name, value: value) }
        }
        let requestTime = now()
        let response: TransportResponse
        do {
            response = try await send(conditional)
        } catch {
            if let stale = staleOnError(stored, for: request) { return stale }
            throw error
        }
        let responseTime = now()
        if response.status == 304 && policy.notModified(response.headers, selects: stored.head) {
            try await Self.drain(response.body)
            let head = policy.updated(stored.head, with: response.headers, requestTime: requestTime, responseTime: responseTime)
            let entry = try store.updateHead(of: stored, to: head)
            if var answer = fromStore(entry, age: policy.currentAge(head, now: now()), outcome: .revalidated, for: request) {
                answer.setCookies = Self.setCookies(response.headers)
                return answer
            }
            return try await fetchFromOrigin(request, key: key)  // the body was damaged: fetch it again
        }
        if response.status >= 500, let stale = staleOnError(stored, for: request) {
            try await Self.drain(response.body)
            return stale
        }
        var replacement = try await receive(response, for: request, key: key, requestTime: requestTime, responseTime: responseTime)
        replacement.replacedStale = true
        return replacement
    }

    /// Validates a stale response that was just served (stale-while-revalidate), once however many
    /// requests are served from it meanwhile; what comes back is stored as usual.
    private func revalidateInBackground(_ stored: CacheEntry, for request: CacheRequest, key: CacheKey) {
        Task(executorPreference: PreferredExecutor.current) { [self] in
            _ = try? await flights.run(key: "revalidate " + key.flight) { try await self.validate(stored, for: request, key: key) }
        }
    }

    private func fetchFromOrigin(_ request: CacheRequest, key: CacheKey) async throws -> CacheResponse {
        let requestTime = now()
        let response = try await send(request)
        return try await receive(response, for: request, key: key, requestTime: requestTime, responseTime: now())
    }

    /// Streams a response body into the store under `key` (or a temporary file when it may not be stored).
    private func receive(
        _ response: TransportResponse, for request: CacheRequest, key: CacheKey, requestTime: Double,
        responseTime: Double
    ) async throws -> CacheResponse {
        let outcome: CacheOutcome =
            mode(of: request) != .bypass
                && configuration.admission.admits(url: URLParts(request.url)!, method: request.method, headers: request.headers)
            ? .miss : .bypass
        guard request.method != .HEAD else {
            try await Self.drain(response.body)
            var answer = CacheResponse(
                status: response.status, headers: CachePolicy.storableHeaders(response.headers),
                body: .empty, outcome: outcome)
            answer.setCookies = Self.setCookies(response.headers)
            return answer
        }
        let storable =
            outcome == .miss
            && policy.canStore(method: request.method, request: request.headers, status: response.status, response: response.headers)
        if storable && configuration.streamsBodies {
            return try stream(response, for: request, key: key, requestTime: requestTime, responseTime: responseTime)
        }
        let (writer, decoder) = try prepareBody(response, url: request.url)
        try await copy(response.body, decoder: decoder, into: writer, url: request.url)
        let headers = decoder.storedHeaders(size: writer.size)
        let head = CachedResponseHead(status: response.status, headers: headers, requestTime: requestTime, responseTime: responseTime)
        var answer: CacheResponse?
        if storable {
            let entry = try store.store(url: key.url, request: request.headers, credentials: request.credentials, head: head, body: writer)
            answer = store.body(of: entry).map {
                CacheResponse(status: entry.status, headers: entry.headers, body: $0, outcome: .miss, entry: entry)
            }
        }
        if answer == nil {
            let size = writer.size
            let body =
                size == 0
                ? ResponseBody.empty
                : try writer.retained.map { ResponseBody(bytes: $0) }
                    ?? ResponseBody(file: BodyFile(path: writer.keptFile(), size: size, digest: nil, isTemporary: true))
            writer.discard()
            answer = CacheResponse(status: response.status, headers: headers, body: body, outcome: outcome)
        }
        answer!.setCookies = Self.setCookies(response.headers)
        return answer!
    }

    /// The `Set-Cookie` values of a response as received.
    private static func setCookies(_ headers: HTTPHeaders) -> [String] {
        headers["set-cookie"]
    }

    /// Returns at once a response whose body follows the download into the store; the entry is
    /// committed only once the body is whole, so a failed download leaves nothing stored.
    private func stream(
        _ response: TransportResponse, for request: CacheRequest, key: CacheKey, requestTime: Double,
        responseTime: Double
    ) throws -> CacheResponse {
        let (writer, decoder) = try prepareBody(response, url: request.url)
        let growing = try GrowingBody(path: writer.readablePath)
        // A decoded body's length is known only at its end; an identity body's is announced.
        let announced = decoder.decodes ? nil : response.headers.first(name: "content-length").flatMap(Int.init)
        var liveHeaders = decoder.storedHeaders(size: announced ?? 0)
        if announced == nil { liveHeaders.remove(name: "content-length") }
        var live = CacheResponse(
            status: response.status, headers: liveHeaders,
            body: ResponseBody(growing: growing, announcedLength: announced), outcome: .miss)
        live.setCookies = Self.setCookies(response.headers)
        liveDownloads.withLock { $0[key.flight] = live }
        let store = self.store
        Task(executorPreference: PreferredExecutor.current) { [self] in
            let outcome: Result<Void, any Error>
            do {
                try await copy(response.body, decoder: decoder, into: writer, url: request.url) { growing.appended($0) }
                let head = CachedResponseHead(
                    status: response.status, headers: decoder.storedHeaders(size: writer.size),
                    requestTime: requestTime, responseTime: responseTime)
                try store.store(url: key.url, request: request.headers, credentials: request.credentials, head: head, body: writer)
                outcome = .success(())
            } catch {
                outcome = .failure(error)
            }
            // Off the live list before its readers hear the end: a request that follows (a range
            // waiting for the whole, say) then finds the stored entry, not this download again.
            _ = liveDownloads.withLock { $0.removeValue(forKey: key.flight) }
            switch outcome {
            case .success: growing.finish()
            case .failure(let error): growing.fail(error)
            }
        }
        return live
    }

    /// A writer for the body and the decoder of its Content-Encoding.
    private func prepareBody(_ response: TransportResponse, url: String) throws -> (BodyWriter, ContentDecoder) {
        let limit = configuration.maxBodySize
        if let length = response.headers.first(name: "content-length").flatMap(Int.init), length > limit {
            throw CacheError.bodyTooLarge(url: url, limit: limit)
        }
        return (try store.makeBodyWriter(limit: limit), try ContentDecoder(headers: response.headers, limit: limit))
    }

    /// Writes the decoded body; `wrote` hears how many bytes each received piece added.
    private func copy(
        _ body: any AsyncSequence<[UInt8], any Error>, decoder: ContentDecoder, into writer: BodyWriter,
        url: String, wrote: (Int) -> Void = { _ in }
    ) async throws {
        do {
            for try await chunk in body {
                let before = writer.size
                try decoder.write(chunk, to: writer)
                wrote(writer.size - before)
            }
            try decoder.finish(writer)
        } catch let error as CacheError where error.code == .bodyTooLarge {
            throw CacheError.bodyTooLarge(url: url, limit: configuration.maxBodySize)
        } catch CompressionError.outputLimitExceeded {
            throw CacheError.bodyTooLarge(url: url, limit: configuration.maxBodySize)
        }
    }

    // MARK: Uncached paths

    /// Requests outside the admission rules or in `.bypass`: straight to the network, never
    /// stored. Outside `.bypass`, an unsafe method that succeeds invalidates what is stored for
    /// its URL (RFC 9111 §4.4).
    private func bypass(_ request: CacheRequest) async throws -> CacheResponse {
        guard mode(of: request) != .offline else { return Self.gatewayTimeout(request.url) }
        let requestTime = now()
        let response = try await send(request)
        let invalidated =
            mode(of: request) == .bypass
            ? [] : policy.invalidatedURLs(method: request.method, status: response.status, url: request.url, response: response.headers)
        for url in invalidated {
            if let parts = URLParts(url) { try store.remove(url: configuration.admission.cacheKey(parts)) }
        }
        return try await receive(
            response, for: request, key: CacheKey(url: request.url, flight: ""), requestTime: requestTime,
            responseTime: now())
    }

    private func send(_ request: CacheRequest) async throws -> TransportResponse {
        try await transport.send(
            TransportRequest(
                url: request.url, method: request.method, headers: request.headers, body: request.body,
                timeout: configuration.timeout))
    }

    private func fromStore(_ entry: CacheEntry, age: Double, outcome: CacheOutcome, for request: CacheRequest) -> CacheResponse? {
        guard let body = store.body(of: entry) else { return nil }
        var headers = entry.headers
        headers.replaceOrAdd(name: "Age", value: String(Int(age.rounded(.down))))
        return CacheResponse(
            status: entry.status, headers: headers, body: request.method == .HEAD ? .empty : body,
            outcome: outcome, entry: entry)
    }

    private func staleOnError(_ stored: CacheEntry, for request: CacheRequest) -> CacheResponse? {
        guard policy.canServeStaleOnError(stored.head, request: request.headers, now: now()) else { return nil }
        return fromStore(stored, age: policy.currentAge(stored.head, now: now()), outcome: .staleOnError, for: request)
    }

    static func gatewayTimeout(_ url: String) -> CacheResponse {
        CacheResponse(status: 504, headers: ["Content-Length": "0"], body: .empty, outcome: .offlineMiss)
    }

    static func drain(_ body: any AsyncSequence<[UInt8], any Error>) async throws {
        for try await _ in body {}
    }
}
