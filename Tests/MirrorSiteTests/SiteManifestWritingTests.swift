import Foundation
@testable import MirrorSite
import NIOHTTP1
import Testing

@Suite("The manifest written piece by piece")
struct SiteManifestWritingTests {
    static func manifest(resources count: Int) -> SiteManifest {
        var manifest = SiteManifest()
        let record = ResponseRecord(headers: ["Content-Type": "text/html", "ETag": "\"x/1\""], requestTime: 1.5, responseTime: 2.25,
                                    varyKey: "")
        for number in 0..<count {
            var resource = SiteManifest.Resource(
                path: "h/ünï/\(number).html", status: 200, contentType: "text/html", size: number,
                sha256: String(repeating: "a", count: 64), etag: "\"x/1\"", lastModified: nil, record: record)
            if number.isMultiple(of: 2) { resource.file = SiteManifest.FileDigest(sha256: "b", size: 1) }
            manifest.resources["http://h/\"q\"/\(number)?a=b"] = resource
        }
        return manifest
    }

    /// Pieces of about a megabyte: the 3,000 resources here take several.
    @Test(arguments: [0, 1, 3000]) func readsBackAsWritten(resources: Int) throws {
        var manifest = Self.manifest(resources: resources)
        for withSeeds in [false, true] {
            if withSeeds {
                manifest.seeds = ["http://h/"]
                manifest.index = SiteManifest.FileDigest(sha256: "c", size: 3)
                manifest.redirects["http://h/r"] = SiteManifest.Redirect(
                    location: "http://h/", status: 301, record: ResponseRecord(headers: [:], requestTime: 0, responseTime: 0, varyKey: ""))
            }
            var text: [UInt8] = []
            try manifest.writeJSON { text += $0 }
            #expect(try JSONDecoder().decode(SiteManifest.self, from: Data(text)) == manifest)
        }
    }
}
