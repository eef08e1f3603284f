import MirrorCore
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
        #expect(StoredResource.decode([3] + encoded.dropFirst()) == nil)  // another version
    }

    /// A row of version 1, as that version wrote it: version 2's, with the header fields as a
    /// count of fields, each a count of strings, where version 2 has them packed.
    static func versionOne(_ resource: SiteManifest.Resource) throws -> [UInt8] {
        var packed = PackedBytes()
        packed.append(bytes: resource.record.packedFields)
        var strings = PackedBytes()
        strings.append(resource.record.headers.count)
        for field in resource.record.headers {
            strings.append(field.count)
            for part in field { strings.append(part) }
        }
        var row = StoredResource.encode(resource)
        row.replaceSubrange(try #require(row.firstRange(of: packed.bytes)), with: strings.bytes)
        row[0] = 1
        return row
    }

    @Test(arguments: [false, true]) func rowsOfVersionOneAreRead(rewritten: Bool) throws {
        let resource = Self.resource(rewritten: rewritten)
        let decoded = StoredResource.decode(try Self.versionOne(resource))
        #expect(decoded == resource)
        #expect(decoded?.record.headers == resource.record.headers)
    }

    /// Header fields damaged inside their own bytes (the row's lengths intact) are refused too.
    @Test func damagedHeaderFieldsAreRefused() throws {
        let resource = Self.resource(rewritten: false)
        let encoded = StoredResource.encode(resource)
        let fields = resource.record.packedFields
        let start = try #require(encoded.firstRange(of: fields)).lowerBound
        // A tag saying a field's value is held in a form `HeaderFields` has none of (3).
        var damaged = encoded
        damaged[start] |= 0b110
        #expect(StoredResource.decode(damaged) == nil)
        // A string inside that runs past the fields' end.
        damaged = encoded
        damaged[start + 1] = 0x7F
        #expect(StoredResource.decode(damaged) == nil)
    }
}
