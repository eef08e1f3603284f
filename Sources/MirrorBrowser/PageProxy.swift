import MirrorCache
import MirrorCore
import MirrorCrawl
import MirrorHTTPServer
import MirrorLock
import MirrorProxy
import NIOCore
import NIOHTTP1

/// The proxy of one tab's browser context: every request the page in that tab makes (HTTPS too,
/// decrypted with the interception CA) is answered through the crawl's `PageFetch`, and counted
/// in the page's `PageTraffic`. With no page loading it refuses everything: that is also how
/// Chromium's own background traffic is answered (the browser-wide proxy never has a page).
/// The browser's own `Cookie` and `Authorization` fields are replaced by the crawl's (for the
/// crawl's origins only) when the request is sent; a response's `Set-Cookie` fields reach the
/// browser as they reached the crawl's jar.
final class PageProxy: HTTPResponder {
    private let page = Locked<PageTraffic?>(nil)

    /// Requests from now on belong to `traffic`'s page (nil: none is loading).
    func attach(_ traffic: PageTraffic?) {
        page.withLock { $0 = traffic }
    }

    /// Conditions and ranges are left out: the crawl stores the whole 200, and a browser takes
    /// a 200 for any of them.
    private static let leftOut = [
        "host", "accept-encoding", "if-match", "if-none-match", "if-modified-since",
        "if-unmodified-since", "range", "if-range", "proxy-authorization",
    ]

    /// JSON, XML, plain text or CSV: what scripts fetch as data.
    static func isData(_ contentType: String?) -> Bool {
        guard let type = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() else { return false }
        return ["application/json", "application/xml", "text/xml", "text/plain", "text/csv", "application/x-ndjson"].contains(type)
            || type.hasSuffix("+json") || type.hasSuffix("+xml")
    }

    func respond(to request: ServerRequest) async -> ServerResponse {
        guard let traffic = page.withLock({ $0 }) else {
            return .text(.forbidden, "mirror: no page is loading; this request is not sent\n")
        }
        let url = request.head.uri
        guard URLParts(url) != nil else { return .text(.badRequest, "mirror: not an absolute http(s) URL: \(url)\n") }
        guard traffic.begin() else {
            return .text(.tooManyRequests, "mirror: this page made more than \(traffic.limit) requests\n")
        }
        var loaded: String?
        defer { traffic.end(loaded: loaded) }
        var headers = CachePolicy.storableHeaders(request.headers)
        for name in Self.leftOut { headers.remove(name: name) }
        let forwarded = CacheRequest(url: url, method: request.method, headers: headers, body: request.body.map { Array(buffer: $0) })
        switch await traffic.fetch(forwarded) {
        case .refused(let reason):
            return .text(.forbidden, "mirror: not fetched: \(reason)\n")
        case .response(let response):
            // The whole body first: the page is not idle while a download runs.
            guard (try? await response.body.arrival()) != nil else {
                return .text(.badGateway, "mirror: the body of \(url) could not be read\n")
            }
            if (200..<400).contains(response.status) { loaded = url }
            if (200..<300).contains(response.status), Self.isData(response.headers.first(name: "content-type")) { traffic.noteData(url) }
            var headers = CachePolicy.storableHeaders(response.headers)
            for name in ["content-length", "content-encoding", "transfer-encoding"] { headers.remove(name: name) }
            if response.body.lengthIsKnown { headers.add(name: "Content-Length", value: String(response.body.count)) }
            // What the exchange set is in the crawl's jar already (the cache keeps none of it);
            // the browser gets it too, so that the page sees within its load what the server set.
            for value in response.setCookies { headers.add(name: "Set-Cookie", value: value) }
            return ServerResponse(
                status: HTTPResponseStatus(statusCode: response.status), headers: headers,
                body: request.method == .HEAD ? .empty : .cached(response.body, range: 0..<Int.max))
        }
    }
}
