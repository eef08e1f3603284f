import NIOHTTP1
import Testing

@testable import MirrorSite

/// A resource holds its validators only when its record's header fields do not have them, and
/// reads as given either way, also after its record changes.
@Suite("A resource's validators")
struct ResourceValidatorTests {
    static func record(_ headers: HTTPHeaders) -> ResponseRecord {
        ResponseRecord(headers: headers, requestTime: 1, responseTime: 2, varyKey: "")
    }

    static func resource(etag: String?, lastModified: String?, record: ResponseRecord) -> SiteManifest.Resource {
        SiteManifest.Resource(
            path: "a.html", status: 200, contentType: "text/html", size: 1,
            sha256: String(repeating: "c", count: 64), etag: etag, lastModified: lastModified, record: record)
    }

    static let withBoth = record(["ETag": "\"1\"", "Last-Modified": "Thu, 26 Nov 2026 03:20:30 GMT"])

    @Test(
        arguments: [(String?, String?)]([
            ("\"1\"", "Thu, 26 Nov 2026 03:20:30 GMT"), (nil, nil), ("\"2\"", "other"), (nil, "Thu, 26 Nov 2026 03:20:30 GMT"),
            ("\"1\"", ""),
        ]))
    func readAsGiven(etag: String?, lastModified: String?) {
        for record in [Self.withBoth, Self.record([:]), Self.record(["etag": "\"1\"", "ETag": "\"3\""])] {
            var resource = Self.resource(etag: etag, lastModified: lastModified, record: record)
            #expect(resource.etag == etag)
            #expect(resource.lastModified == lastModified)
            #expect(resource.sha256 == String(repeating: "c", count: 64))
            for newRecord in [Self.withBoth, Self.record([:]), Self.record(["ETag": "\"9\""])] {
                resource.record = newRecord
                #expect(resource.record == newRecord)
                #expect(resource.etag == etag)
                #expect(resource.lastModified == lastModified)
            }
        }
    }

    /// Two resources that read the same are equal, whether each holds its validators or not.
    @Test func equalWhenTheyReadTheSame() {
        let derived = Self.resource(etag: "\"1\"", lastModified: nil, record: Self.withBoth)
        var own = Self.resource(etag: "\"1\"", lastModified: nil, record: Self.record([:]))
        #expect(derived != own)
        own.record = Self.withBoth
        #expect(derived == own)
        #expect(derived != Self.resource(etag: "\"2\"", lastModified: nil, record: Self.withBoth))
    }
}
