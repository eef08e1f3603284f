import MirrorSite
import NIOHTTP1

/// A response held in memory, for tests of `SiteWriter` alone: nothing stored, nothing to link.
struct PageInMemory: SavedResponse {
    let status: Int
    let headers: HTTPHeaders
    let body: [UInt8]

    init(_ html: String, status: Int = 200, headers: HTTPHeaders = ["content-type": "text/html"]) {
        self.status = status
        self.headers = headers
        body = Array(html.utf8)
    }

    var bodySize: Int { body.count }
    var knownDigest: String? { nil }

    func bodyChunks(chunkSize: Int) -> AsyncStream<[UInt8]> {
        let pieces = stride(from: 0, to: body.count, by: chunkSize).map { Array(body[$0..<min(body.count, $0 + chunkSize)]) }
        return AsyncStream { continuation in
            pieces.forEach { continuation.yield($0) }
            continuation.finish()
        }
    }

    func linkBody(to path: String) -> Bool { false }

    func record(now: Double) -> ResponseRecord {
        ResponseRecord(headers: headers, requestTime: now, responseTime: now, varyKey: "")
    }
}
