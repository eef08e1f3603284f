import Foundation
@testable import MirrorSite
import NIOHTTP1
import Testing

/// A record keeps its header fields packed; what goes in comes out, in JSON as `[[String]]`.
@Suite("Response records")
struct ResponseRecordTests {
    static let fields: [[[String]]] = [
        [],
        [["Content-Type", "text/html"], ["ETag", "\"ü1\""], ["X-Empty", ""], ["", ""]],
        [["one part"], ["three", "parts", "here"], []],
        [["Set-Cookie", String(repeating: "é", count: 70)], ["Link", String(repeating: "<x>; rel=preload, ", count: 1000)]],
        [["nul\u{0}inside", "tab\tand\nnewline"], ["🙂", "\u{1F600}\u{301}"]],
        // Common names are packed as codes: in either case, alone, with more parts, and near misses.
        [["Server", "nginx"], ["content-type", "text/css"], ["Content-TYPE", "x"], ["ETag"], ["Date", "a", "b"],
         ["Vary", ""], ["Servers", "y"], ["Last-Modified", String(repeating: "z", count: 300)]],
    ]

    @Test(arguments: fields) func fieldsRoundTrip(fields: [[String]]) throws {
        var record = ResponseRecord(headers: [:], requestTime: 1.5, responseTime: 2.25, varyKey: "gzip")
        record.headers = fields
        #expect(record.headers.map { $0.map { Array($0.utf8) } } == fields.map { $0.map { Array($0.utf8) } })
        let json = try JSONEncoder().encode(record)
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect(object["headers"] as? [[String]] == fields)
        #expect(Set(object.keys) == ["headers", "requestTime", "responseTime", "varyKey"])
        #expect(try JSONDecoder().decode(ResponseRecord.self, from: json) == record)
    }

    /// A response's usual names take a byte each, so a record per URL holds mostly values.
    @Test func commonNamesArePackedAsCodes() {
        let fields = [["Server", "nginx"], ["Content-Type", "text/html"], ["ETag", "\"1\""], ["accept-ranges", "bytes"]]
        let packed = HeaderFields.pack(fields)
        #expect(packed.count == fields.reduce(0) { $0 + 2 + 1 + $1[1].utf8.count })
        #expect(HeaderFields.unpack(packed) == fields)
    }

    /// A field is found in the packed bytes as `HTTPHeaders.first(name:)` finds it in the headers.
    @Test(arguments: fields) func firstValueIsTheHeadersFirst(fields: [[String]]) {
        var record = ResponseRecord(headers: [:], requestTime: 0, responseTime: 0, varyKey: "")
        record.headers = fields
        let names = ["etag", "ETAG", "content-type", "Server", "servers", "vary", "date", "last-modified", "x-empty", "", "🙂", "link"]
        for name in names {
            #expect(record.firstValue(named: name) == record.httpHeaders.first(name: name), "\(name)")
        }
    }

    @Test func headersKeepTheirOrderAndRepeats() {
        let headers = HTTPHeaders([("Vary", "Accept"), ("Content-Type", "text/css"), ("Vary", "Cookie")])
        let record = ResponseRecord(headers: headers, requestTime: 0, responseTime: 0, varyKey: "")
        #expect(record.headers == [["Vary", "Accept"], ["Content-Type", "text/css"], ["Vary", "Cookie"]])
        #expect(record.httpHeaders == headers)
    }
}
