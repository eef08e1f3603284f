import Crypto
import Foundation
import MirrorCore
import NIOHTTP1
import Testing

@testable import MirrorSite

/// A record keeps its header fields packed; what goes in comes out, in JSON as `[[String]]`.
@Suite("Response records")
struct ResponseRecordTests {
    static let fields: [[[String]]] = [
        [],
        [["Content-Type", "text/html"], ["ETag", "\"ü1\""], ["X-Empty", ""], ["", ""]],
        [["one part"], ["three", "parts", "here"], []],
        [["Set-Cookie", String(repeating: "é", count: 70)], ["Link", String(repeating: "<x>; rel=preload, ", count: 1000)]],
        [["nul\u{0}inside", "tab\tand\nnewline"], ["🙂", "\u{1F600}\u{301}"]],
        // Canonically equal to common values (U+037E is `;`), not the same bytes: kept as text.
        [["Content-Type", "text/html\u{37E} charset=utf-8"], ["X-XSS-Protection", "1\u{37E} mode=block"], ["\u{212A}eep-Alive", "x"]],
        // Common names are packed as codes: in either case, alone, with more parts, and near misses.
        [
            ["Server", "nginx"], ["content-type", "text/css"], ["Content-TYPE", "x"], ["ETag"], ["Date", "a", "b"],
            ["Vary", ""], ["Servers", "y"], ["Last-Modified", String(repeating: "z", count: 300)],
        ],
        // Common values and dates are packed as numbers: exact ones only, under any name.
        [
            ["Connection", "keep-alive"], ["X-Mode", "keep-alive"], ["Connection", "Keep-Alive"],
            ["Date", "Thu, 26 Nov 2026 12:36:00 GMT"],
            ["Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT"], ["Expires", "Thu, 01 Jan 1970 00:00:00 GMT"],
            ["Date", "thu, 26 Nov 2026 12:36:00 GMT"], ["Date", "Wed, 26 Nov 2026 12:36:00 GMT"],
            ["Date", "Thu, 26 Nov 2026 12:36:00 GMT "],
            ["Date", "Thursday, 26-Nov-26 12:36:00 GMT"], ["Date", "Thu, 32 Nov 2026 12:36:00 GMT"],
            ["Date", "Wed, 31 Dec 1969 23:59:59 GMT"],
            ["X-Date", "Thu, 26 Nov 2026 12:36:00 GMT", "and more"], ["Thu, 26 Nov 2026 12:36:00 GMT"], ["Content-Type", "text/html"],
        ],
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

    /// A response's usual names and values take a byte each, and its dates (IMF-fixdate) their
    /// seconds: a record per URL holds mostly what is its own.
    @Test func commonNamesValuesAndDatesArePackedAsNumbers() {
        let fields = [
            ["Server", "nginx"], ["Content-Type", "text/html"], ["ETag", "\"1\""], ["accept-ranges", "bytes"],
            ["Date", "Thu, 26 Nov 2026 12:36:00 GMT"], ["Last-Modified", "Thu, 26 Nov 2026 12:35:00 GMT "],
        ]
        let packed = HeaderFields.pack(fields)
        // Tag and name code each field; then a value code, the ETag's text, 5 bytes of seconds, the text of a date with a space.
        #expect(packed.count == 2 * fields.count + 1 + (1 + 3) + 1 + 5 + (1 + 30) + 1)
        #expect(HeaderFields.unpack(packed) == fields)
        #expect(HeaderFields.firstValue(named: "date", in: packed) == "Thu, 26 Nov 2026 12:36:00 GMT")
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

    /// A value is checked against a field's in the packed bytes as the bytes of `firstValue`
    /// compare: common values, dates (held as seconds: a near miss of their text is another
    /// value), text, no value at all, and two Unicode spellings of one text.
    @Test(arguments: fields) func aValueIsTheFirstValueByItsBytes(fields: [[String]]) {
        var record = ResponseRecord(headers: [:], requestTime: 0, responseTime: 0, varyKey: "")
        record.headers = fields
        let names = ["etag", "content-type", "Server", "date", "last-modified", "connection", "x-empty", "x-mode", "", "🙂"]
        let candidates: [String?] =
            [nil, "", "x", "nginx", "text/html", "text/html\u{3B} charset=utf-8", "keep-alive", "Keep-Alive", "\"ü1\""]
            + ["Thu, 26 Nov 2026 12:36:00 GMT", "Thu, 26 Nov 2026 12:36:00 GMT ", "thu, 26 Nov 2026 12:36:00 GMT"]
            + ["Sun, 06 Nov 1994 08:49:37 GMT", "Thu, 01 Jan 1970 00:00:00 GMT", "\u{1F600}\u{301}", "\"u\u{308}1\""]
            + fields.compactMap { $0.count == 2 ? $0[1] : nil }
        for name in names {
            let found = record.firstValue(named: name)
            for value in candidates {
                let same = found.map { Array($0.utf8) } == value.map { Array($0.utf8) }
                #expect(record.firstValue(named: name, is: value) == same, "\(name): \(value ?? "nil")")
            }
        }
    }

    @Test func headersKeepTheirOrderAndRepeats() {
        let headers = HTTPHeaders([("Vary", "Accept"), ("Content-Type", "text/css"), ("Vary", "Cookie")])
        let record = ResponseRecord(headers: headers, requestTime: 0, responseTime: 0, varyKey: "")
        #expect(record.headers == [["Vary", "Accept"], ["Content-Type", "text/css"], ["Vary", "Cookie"]])
        #expect(record.httpHeaders == headers)
    }

    /// A record is made again from its packed fields (as the crawl's journal keeps them), the
    /// same record; a cut of them is taken exactly where it falls between two fields.
    @Test(arguments: fields) func packedFieldsMakeTheSameRecord(fields: [[String]]) throws {
        var record = ResponseRecord(headers: [:], requestTime: 1.5, responseTime: 2.25, varyKey: "gzip")
        record.headers = fields
        let again = try #require(ResponseRecord(packedFields: record.packedFields, requestTime: 1.5, responseTime: 2.25, varyKey: "gzip"))
        #expect(again == record)
        #expect(again.headers == record.headers)
        let boundaries = Set((0...fields.count).map { HeaderFields.pack(Array(fields.prefix($0))).count })
        for cut in 0...record.packedFields.count {
            let prefix = Array(record.packedFields.prefix(cut))
            #expect(HeaderFields.isPacked(prefix) == boundaries.contains(cut), "cut at \(cut)")
            #expect((ResponseRecord(packedFields: prefix, requestTime: 0, responseTime: 0, varyKey: "") != nil) == boundaries.contains(cut))
        }
    }

    /// The journal keeps fields by the places of the common names and values: a change to them
    /// is a new version of its rows (`StoredResource`), and of this digest.
    @Test func theCodesOfCommonNamesAndValuesStayPut() {
        let tables = HeaderFields.commonNames.joined(separator: "\n") + "\n\n" + HeaderFields.commonValues.joined(separator: "\n")
        #expect(Hex.string(SHA256.hash(data: Array(tables.utf8))) == "cee14a34c824b65a6d98ee68dcbe30495c1d60a8a6780eff7bd94bfda02335ce")
        #expect(HeaderFields.pack([["Content-Type", "text/html"], ["etag", "nginx"]]) == [19, 2, 10, 19, 39 + 5, 42])
    }

    @Test func packedFieldsOfNoFormAreRefused() {
        // `Content-Type: text/html`: two parts (16), a common name (+1) by code 2, a common value (+2) by code 10.
        #expect(HeaderFields.unpack([19, 2, 10]) == [["Content-Type", "text/html"]])
        #expect(HeaderFields.isPacked([19, 2, 10]))
        // The last second `HTTPDate` writes is taken: `Date` (code 1) held as its seconds.
        var last = PackedBytes()
        last.append(21)
        last.append(1)
        last.append(Int(HTTPDate.writableSeconds.upperBound))
        #expect(HeaderFields.unpack(last.bytes) == [["Date", "Fri, 31 Dec 9999 23:59:59 GMT"]])
        #expect(HeaderFields.isPacked(last.bytes))
        let refused: [[UInt8]] = [
            [23, 2],  // a value held in a form there is none of (3)
            [29, 2, 0, 10],  // a date held as its seconds in a field of three parts
            [19, 2],  // the value's code missing
            [19, 2, 200, 1],  // a value code past the common values
            [16, 5, 65],  // a name longer than what is left
            [0x80],  // a tag cut short
            [1, 2],  // a field of no parts with a name
            [21, 1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10],  // a date past 9999 (2^39 seconds)
            [21, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01],  // a date before 1970 (-1 s)
        ]
        for packed in refused {
            #expect(!HeaderFields.isPacked(packed), "\(packed)")
            #expect(ResponseRecord(packedFields: packed, requestTime: 0, responseTime: 0, varyKey: "") == nil, "\(packed)")
        }
    }
}
