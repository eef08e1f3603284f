import Foundation
import NIOHTTP1
import Testing

@testable import MirrorSite

@Suite("The manifest written piece by piece")
struct SiteManifestWritingTests {
    static func manifest(resources count: Int) -> SiteManifest {
        var manifest = SiteManifest()
        let record = ResponseRecord(
            headers: ["Content-Type": "text/html", "ETag": "\"x/1\""], requestTime: 1.5, responseTime: 2.25,
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

    /// Pieces of about a megabyte: the 3,000 resources here take several. 256, 257 and 3,000
    /// resources fall on and across the blocks (256) and waves (2,048) formatted in parallel.
    @Test(arguments: [0, 1, 256, 257, 3000]) func readsBackAsWritten(resources: Int) throws {
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
            #expect(text == Array(try Self.encoder.encode(manifest)))
        }
    }

    /// The hand-written JSON is byte for byte the encoder's, whatever the strings and numbers
    /// hold: escapes, non-ASCII text, keys that sort differently by case, accent or digits,
    /// empty and absent values, whole and fractional times.
    @Test func isTheEncodersJSON() throws {
        var manifest = SiteManifest()
        let awkward = ["", "a/b", "\"q\"", "back\\slash", "\u{0}\u{1}\u{1f}\u{7f}", "\n\r\t\u{8}\u{c}", "é 日本 \u{2028} 😀", "<>&'"]
        let times: [Double] = [0, 1, 1_795_536_703, 1_795_536_703.7567072, 0.1, 1e-5, 1e21, 123_456_789_012_345_680, 1e15 + 0.5]
        for (number, key) in ["http://h/é", "http://h/z", "http://h/Z", "http://h/ä", "http://h/a10", "http://h/a9", "http://h/%41"]
            .enumerated()
        {
            let text = awkward[number % awkward.count]
            let record = ResponseRecord(
                headers: number == 0 ? [:] : HTTPHeaders([("X-\(number)", text), ("Content-Type", "text/html")]),
                requestTime: times[number], responseTime: -times[number + 1], varyKey: text)
            var resource = SiteManifest.Resource(
                path: text + "/\(number)", status: 200 + number, contentType: number == 1 ? nil : text, size: number * 1000,
                sha256: key, etag: number.isMultiple(of: 2) ? text : nil, lastModified: number == 3 ? nil : text, record: record)
            if number.isMultiple(of: 3) { resource.file = SiteManifest.FileDigest(sha256: text, size: number) }
            if number != 4 { resource.rewrittenFor = text }
            manifest.resources[key] = resource
            manifest.redirects[key + text] = SiteManifest.Redirect(location: text, status: 301 + number, record: record)
        }
        manifest.seeds = awkward
        manifest.index = SiteManifest.FileDigest(sha256: "c", size: 3)
        var text: [UInt8] = []
        try manifest.writeJSON { text += $0 }
        #expect(String(decoding: text, as: UTF8.self) == String(decoding: try Self.encoder.encode(manifest), as: UTF8.self))
        manifest.seeds = []
        text = []
        try manifest.writeJSON { text += $0 }
        #expect(text == Array(try Self.encoder.encode(manifest)))
    }

    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
