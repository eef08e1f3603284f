import MirrorCache
import NIOHTTP1

/// The folder's copy of a page loaded in the browser (`--browser`), in the form its offline
/// check chose.
struct PageCopier: Sendable {
    let sender: RequestSender

    /// The copy of `response` in `form`: its rendered DOM as UTF-8 HTML, or its own bytes (with
    /// what its tool needs to run from `file://`), with the replay layer when its scripts fetched
    /// data (each response read from the cache, where the page's requests put it). nil when that
    /// form cannot be had (no snapshot was taken).
    func copy(
        of response: CacheResponse, in form: RenderedPage.CopyForm, snapshot: [UInt8]?, data: [String],
        pageURL: String
    ) async -> CacheResponse? {
        switch form {
        case .snapshot:
            guard let snapshot else { return nil }
            var headers = response.headers
            headers.replaceOrAdd(name: "Content-Type", value: "text/html; charset=utf-8")
            return Self.changed(response, headers: headers, body: snapshot)
        case .original:
            guard let page = try? response.body.collect() else { return response }
            let switched = FileSchemeSwitches.apply(to: page)
            guard !data.isEmpty else {
                return switched == page ? response : Self.changed(response, headers: response.headers, body: switched)
            }
            var recorded: [ReplayLayer.Recorded] = []
            for url in data {
                guard let answer = try? await sender.send(CacheRequest(url: url)), (200..<300).contains(answer.status),
                    answer.body.count <= ReplayLayer.maxBody, let body = try? answer.body.collect()
                else { continue }
                recorded.append(
                    .init(
                        url: url, contentType: answer.headers.first(name: "content-type") ?? "application/octet-stream",
                        body: body))
            }
            let layer = ReplayLayer(pageURL: pageURL, responses: recorded)
            return Self.changed(response, headers: response.headers, body: layer.inject(into: switched))
        }
    }

    /// `response` with other bytes: no length or validator of the original's.
    private static func changed(_ response: CacheResponse, headers: HTTPHeaders, body: [UInt8]) -> CacheResponse {
        var headers = headers
        headers.remove(name: "content-length")
        headers.remove(name: "etag")
        return CacheResponse(status: response.status, headers: headers, body: ResponseBody(bytes: body), outcome: response.outcome)
    }
}
