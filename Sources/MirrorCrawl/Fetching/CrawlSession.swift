public import MirrorCache
import MirrorCore
import MirrorCredentials
import MirrorLock

/// A private site: each request carries the crawl's credentials where they may go, a challenge
/// is answered once, the cookies a response sets are kept, and a response that deletes a cookie
/// the user gave ends the crawl before a login page is saved over a real one.
final class CrawlSession: Sendable {
    /// The user's headers, login and cookies, and the cookies the sites set.
    let credentials: CrawlCredentials
    private let recorder: ReportRecorder
    private let frontier: any CrawlFrontier
    /// Set when a response deleted a cookie the user gave: no request is sent after it.
    private let sessionEnd = Locked<SessionEnded?>(nil)

    init(credentials: CrawlCredentials, recorder: ReportRecorder, frontier: any CrawlFrontier) {
        self.credentials = credentials
        self.recorder = recorder
        self.frontier = frontier
    }

    /// `request` with the crawl's credential fields for its URL and no others: whatever a caller
    /// set itself (the browser's cookies, say) is replaced, so nothing reaches a host the
    /// credentials are not for. Its responses are stored private to the user's credentials.
    func authorized(_ original: CacheRequest) -> CacheRequest {
        var request = original
        for name in credentials.fieldNames { request.headers.remove(name: name) }
        guard let url = URLParts(request.url) else { return request }
        for field in credentials.fields(for: url, method: request.method.rawValue) {
            request.headers.add(name: field.name, value: field.value)
        }
        request.credentials = credentials.fingerprint(for: url)
        return request
    }

    /// The request to send again after `response` asked for credentials the crawl can give
    /// (401 with a Basic or Digest challenge); nil when there is none. A 401 or 407 not answered
    /// is noted in the report once per origin, with its realm.
    func challenged(_ response: CacheResponse, to request: CacheRequest) throws -> CacheRequest? {
        guard response.status == 401 || response.status == 407, let url = URLParts(request.url) else { return nil }
        let field = response.status == 401 ? "www-authenticate" : "proxy-authenticate"
        let sent = request.headers.first(name: "authorization")
        if response.status == 401, credentials.challenged(response.headers[field], url: url, sent: sent) {
            return authorized(request)
        }
        let realm = AuthenticationChallenge.parse(response.headers[field]).compactMap(\.realm).first
        recorder.report.withLock { report in
            guard !report.credentialsWanted.contains(where: { $0.origin == url.origin }) else { return }
            report.credentialsWanted.append(
                .init(
                    origin: url.origin, status: response.status, realm: realm,
                    refused: sent != nil || request.headers.contains(name: "cookie")))
        }
        return nil
    }

    /// Keeps what `response` set in the jar; when it deleted a cookie the user gave, the session
    /// is over: the crawl stops, and this response is not saved.
    func keepCookies(of response: CacheResponse, for request: CacheRequest) async throws {
        guard !response.setCookies.isEmpty, let url = URLParts(request.url) else { return }
        guard case .sessionEnded(let cookie) = credentials.received(setCookies: response.setCookies, from: url) else { return }
        let ended = SessionEnded(url: request.url, cookie: cookie)
        let first = sessionEnd.withLock { end -> Bool in
            defer { end = end ?? ended }
            return end == nil
        }
        if first {
            recorder.report.withLock { $0.sessionEnded = .init(url: ended.url, cookie: ended.cookie) }
            await frontier.stop()
        }
        throw ended
    }

    /// Throws once the session has ended: nothing more is sent with credentials that no longer work.
    func checkSession() throws {
        if let ended = sessionEnd.withLock({ $0 }) { throw ended }
    }
}

/// A response deleted a cookie the user gave: the site ended the login session. Pages after it
/// would be its login page; the URL stays queued for `--resume` with fresh credentials.
public struct SessionEnded: Error, PermanentTransportError, CustomStringConvertible, Equatable {
    public let url: String
    public let cookie: String

    public var description: String {
        "the site ended the login session: \(url) deleted the cookie \(cookie)"
    }
}
