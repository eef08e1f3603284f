import Crypto
import Foundation
import MirrorCache
import MirrorCore
public import NIOHTTP1

/// One stored response to export: its key, head, times and body (in the cache, or in a mirrored
/// folder's file).
public struct ArchivedResponse {
    enum Body {
        case cache(CacheStore, CacheEntry)
        /// A file in a folder, checked against the manifest's size and SHA-256 as it is read.
        case file(String)
        /// No body: a folder keeps none for redirects.
        case empty
    }

    static let emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    public var url: String
    public var status: Int
    /// The headers as stored (bodies are stored decoded).
    public var headers: HTTPHeaders
    public var requestTime: Double
    public var responseTime: Double
    /// The request's values of the fields named by Vary (`CachePolicy.varyKey`).
    public var varyKey: String
    /// Lower-case hex SHA-256 of the body, and its size.
    public var sha256: String
    public var size: Int
    let body: Body

    /// The whole body, checked against its digest.
    func bytes() throws -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        try forEachChunk { bytes += $0 }
        return bytes
    }

    /// Calls `consume` with the body in chunks, and checks its digest at the end: throws
    /// `ArchiveError.damagedBody` when it does not match.
    func forEachChunk(_ consume: ([UInt8]) throws -> Void) throws {
        switch body {
        case .cache(let store, let entry):
            guard let body = store.body(of: entry) else { throw ArchiveError.damagedBody(url: url) }
            do {
                try body.forEachChunk(consume)
            } catch let error as CacheError where error.code == .corruptBody {
                throw ArchiveError.damagedBody(url: url)
            }
        case .file(let path):
            guard let handle = FileHandle(forReadingAtPath: path) else { throw ArchiveError.damagedBody(url: url) }
            defer { try? handle.close() }
            var hasher = SHA256()
            var total = 0
            while let chunk = try handle.read(upToCount: 256 << 10), !chunk.isEmpty {
                hasher.update(data: chunk)
                total += chunk.count
                try consume(Array(chunk))
            }
            guard total == size, Hex.string(hasher.finalize()) == sha256 else { throw ArchiveError.damagedBody(url: url) }
        case .empty:
            return
        }
    }
}
