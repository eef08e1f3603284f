import MirrorSite
import NIOHTTP1
import Testing

@testable import MirrorCrawl

@Suite("Saved resources kept in the journal")
struct StoredResourceTests {
    static func resource(rewritten: Bool) -> SiteManifest.Resource {
        let record = ResponseRecord(
            headers: ["Content-Type": "text/html; charset=utf-8", "ETag": "\"ü1\"", "X-Empty": ""],
            requestTime: 1_700_000_000.25, responseTime: 1_700_000_000.5, varyKey: "accept-encoding=gzip")
        var resource = SiteManifest.Resource(
            path: "127.0.0.1_8080/docs/ünï@v=1.html", status: 200, contentType: rewritten ? "text/html" : nil, size: 1234,
            sha256: String(repeating: "ab", count: 32), etag: rewritten ? "\"ü1\"" : nil, lastModified: nil, record: record)
        if rewritten {
            resource.rewrittenFor = String(repeating: "cd", count: 32)
            resource.file = SiteManifest.FileDigest(sha256: String(repeating: "ef", count: 32), size: 1300)
        }
        return resource
    }

    @Test(arguments: [false, true]) func roundTrip(rewritten: Bool) throws {
        let resource = Self.resource(rewritten: rewritten)
        #expect(StoredResource.decode(StoredResource.encode(resource)) == resource)
    }

    @Test func damagedBytesAreRefused() {
        let encoded = StoredResource.encode(Self.resource(rewritten: true))
        for cut in 0..<encoded.count { #expect(StoredResource.decode(Array(encoded.prefix(cut))) == nil, "cut at \(cut)") }
        #expect(StoredResource.decode(encoded + [0]) == nil)
        #expect(StoredResource.decode([2] + encoded.dropFirst()) == nil)  // another version
    }
}
