public import NIOHTTP1

/// A fetched response as `SiteWriter` saves it, whatever fetched it: a crawl's answer from its
/// cache engine, or a page a test holds in memory.
public protocol SavedResponse: Sendable {
    associatedtype Chunks: AsyncSequence where Chunks.Element == [UInt8]
    var status: Int { get }
    var headers: HTTPHeaders { get }
    /// The body's length in bytes.
    var bodySize: Int { get }
    /// The body's bytes in order, in pieces of at most `chunkSize`.
    func bodyChunks(chunkSize: Int) -> Chunks
    /// The body's SHA-256 (hex) when it is known without reading the body: a stored body's.
    var knownDigest: String? { get }
    /// Makes `path` a hard link to the stored body; false when there is none to link.
    func linkBody(to path: String) -> Bool
    /// What the manifest keeps of the response: its stored head, or its headers received `now`.
    func record(now: Double) -> ResponseRecord
}
