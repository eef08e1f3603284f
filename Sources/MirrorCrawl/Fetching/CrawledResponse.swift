import MirrorCache
import MirrorSite
import NIOHTTP1

/// A response of the crawl's cache engine as the folder saves it: a stored body is linked from
/// the store, not copied.
struct CrawledResponse: SavedResponse {
    let response: CacheResponse
    let store: CacheStore

    init(_ response: CacheResponse, store: CacheStore) {
        self.response = response
        self.store = store
    }

    var status: Int { response.status }
    var headers: HTTPHeaders { response.headers }
    var bodySize: Int { response.body.count }
    var knownDigest: String? { response.entry?.digest }

    func bodyChunks(chunkSize: Int) -> ResponseBody.Chunks { response.body.chunks(chunkSize: chunkSize) }

    func linkBody(to path: String) -> Bool {
        guard let entry = response.entry else { return false }
        return store.linkBody(of: entry, to: path)
    }

    /// The stored entry's head, or (for a response the cache did not keep) its own headers received `now`.
    func record(now: Double) -> ResponseRecord {
        if let entry = response.entry {
            ResponseRecord(
                headers: entry.headers, requestTime: entry.requestTime, responseTime: entry.responseTime, varyKey: entry.shareableVaryKey)
        } else {
            ResponseRecord(headers: response.headers, requestTime: now, responseTime: now, varyKey: "")
        }
    }
}
