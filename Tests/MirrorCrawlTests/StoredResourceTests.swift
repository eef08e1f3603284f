import Foundation
import MirrorCore
import MirrorSQLite
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
        #expect(StoredResource.decode([4] + encoded.dropFirst()) == nil)  // another version
    }

    /// A resource whose record has fields of every shape: two parts (common and other names,
    /// a common value, a date), one, none and three.
    static let fieldsOfEveryShape: SiteManifest.Resource = {
        var record = ResponseRecord(
            headers: HTTPHeaders(), requestTime: 1_700_000_000.25, responseTime: 1_700_000_000.5, varyKey: "accept-encoding=gzip")
        record.headers = [
            ["Content-Type", "text/html; charset=utf-8"], ["ETag", "\"ü1\""], ["X-Empty", ""], ["Date", "Thu, 26 Nov 2026 12:36:00 GMT"],
            ["one part"], [], ["three", "parts", "here"], ["server", "nginx"],
        ]
        var resource = SiteManifest.Resource(
            path: "127.0.0.1_8080/docs/ünï.html", status: 200, contentType: "text/html", size: 1234,
            sha256: String(repeating: "ab", count: 32), etag: "\"ü1\"", lastModified: nil, record: record)
        resource.rewrittenFor = String(repeating: "cd", count: 32)
        resource.file = SiteManifest.FileDigest(sha256: String(repeating: "ef", count: 32), size: 1300)
        return resource
    }()

    /// `fieldsOfEveryShape` as version 1 wrote it (the encoder of 14e6ad6), its header fields
    /// as strings.
    static let versionOneRow: [UInt8] = {
        let hex = [
            "011e3132372e302e302e315f383038302f646f63732fc3bc6ec3af2e68746d6cc8010109746578742f68746d6cd20940",
            "616261626162616261626162616261626162616261626162616261626162616261626162616261626162616261626162",
            "61626162616261626162616261626162010522c3bc31220008020c436f6e74656e742d5479706518746578742f68746d",
            "6c3b20636861727365743d7574662d380204455461670522c3bc31220207582d456d707479000204446174651d546875",
            "2c203236204e6f7620323032362031323a33363a303020474d5401086f6e652070617274000305746872656505706172",
            "747304686572650206736572766572056e67696e788080c080c49fd5ec4180808081c49fd5ec41146163636570742d65",
            "6e636f64696e673d677a6970014063646364636463646364636463646364636463646364636463646364636463646364",
            "636463646364636463646364636463646364636463646364636463646364014065666566656665666566656665666566",
            "656665666566656665666566656665666566656665666566656665666566656665666566656665666566656665666566",
            "940a",
        ].joined()
        return Hex.bytes(hex)!
    }()

    /// `resource` as version 2 wrote it (the encoder of 60828f7): digests as text, validators as
    /// strings.
    static func versionTwoRow(_ resource: SiteManifest.Resource) -> [UInt8] {
        var bytes = PackedBytes(capacity: 512)
        bytes.append(byte: 2)
        bytes.append(resource.path)
        bytes.append(resource.status)
        bytes.append(resource.contentType)
        bytes.append(resource.size)
        bytes.append(resource.sha256)
        bytes.append(resource.etag)
        bytes.append(resource.lastModified)
        bytes.append(bytes: resource.record.packedFields)
        bytes.append(resource.record.requestTime)
        bytes.append(resource.record.responseTime)
        bytes.append(resource.record.varyKey)
        bytes.append(resource.rewrittenFor)
        bytes.append(resource.file?.sha256)
        if let file = resource.file { bytes.append(file.size) }
        return bytes.bytes
    }

    /// Rows of version 2 read back as the resource they were, validators of their own (set,
    /// absent, differing from the record's) and digests that are not hex included.
    @Test(arguments: [false, true]) func rowsOfVersionTwoAreRead(rewritten: Bool) throws {
        var resources = [Self.resource(rewritten: rewritten), Self.fieldsOfEveryShape]
        resources.append(
            SiteManifest.Resource(
                path: "a.html", status: 200, contentType: "text/html", size: 3, sha256: "not hex",
                etag: "\"own\"", lastModified: "Wed, 25 Nov 2026 10:00:00 GMT", record: Self.fieldsOfEveryShape.record,
                rewrittenFor: nil, file: SiteManifest.FileDigest(sha256: "ABCD", size: 2)))
        for resource in resources {
            let decoded = try #require(StoredResource.decode(Self.versionTwoRow(resource)))
            #expect(decoded == resource)
            #expect(decoded.etag == resource.etag && decoded.lastModified == resource.lastModified)
            #expect(decoded.sha256 == resource.sha256 && decoded.file?.sha256 == resource.file?.sha256)
            #expect(!StoredResource.isOfLaterVersion(Self.versionTwoRow(resource)))
        }
    }

    /// A row keeps which validators are the record's fields and which are values of their own,
    /// and digests that are not 64 hex digits as their text.
    @Test func validatorsAndDigestsKeepTheirForm() throws {
        let record = Self.fieldsOfEveryShape.record
        let shapes: [(etag: String?, lastModified: String?)] = [
            ("\"ü1\"", nil), (nil, nil), ("\"other\"", "Thu, 26 Nov 2026 12:36:00 GMT"), ("", "Thu, 26 Nov 2026 12:36:01 GMT"),
        ]
        for (etag, lastModified) in shapes {
            for digest in [String(repeating: "0f", count: 32), "ABCDEF", ""] {
                let resource = SiteManifest.Resource(
                    path: "p.html", status: 200, contentType: nil, size: 1, sha256: digest, etag: etag, lastModified: lastModified,
                    record: record, file: SiteManifest.FileDigest(sha256: digest, size: 1))
                let decoded = try #require(StoredResource.decode(StoredResource.encode(resource)))
                #expect(decoded == resource)
                #expect(decoded.etag == etag && decoded.lastModified == lastModified)
                #expect(decoded.validators == resource.validators)
                #expect(decoded.sha256 == digest && decoded.file?.sha256 == digest)
            }
        }
        // A validator that is the record's field is not written out again.
        let inRecord = SiteManifest.Resource(
            path: "p.html", status: 200, contentType: nil, size: 1, sha256: "", etag: "\"ü1\"", lastModified: nil, record: record)
        #expect(inRecord.validators.etag == .inRecord)
        let value = Array("\"ü1\"".utf8)
        func occurrences(in bytes: [UInt8]) -> Int { bytes.indices.filter { bytes[$0...].starts(with: value) }.count }
        #expect(occurrences(in: StoredResource.encode(inRecord)) == occurrences(in: record.packedFields))
        #expect(occurrences(in: record.packedFields) == 1)
    }

    @Test func rowsOfVersionOneAreRead() {
        let decoded = StoredResource.decode(Self.versionOneRow)
        #expect(decoded == Self.fieldsOfEveryShape)
        #expect(decoded?.record.headers == Self.fieldsOfEveryShape.record.headers)
        #expect(!StoredResource.isOfLaterVersion(Self.versionOneRow))
    }

    /// A row of a version after this one is told from a damaged one, so that the error can say
    /// which (`CrawlJournalError.ofLaterVersion`).
    @Test func rowsOfALaterVersionAreToldFromDamagedOnes() throws {
        let encoded = StoredResource.encode(Self.fieldsOfEveryShape)
        #expect(StoredResource.decode(encoded) == Self.fieldsOfEveryShape)
        let later = [4] + encoded.dropFirst()
        #expect(StoredResource.decode(later) == nil)
        #expect(StoredResource.isOfLaterVersion(later))
        #expect(!StoredResource.isOfLaterVersion(encoded))
        #expect(!StoredResource.isOfLaterVersion(Array(encoded.dropLast())))
        #expect(!StoredResource.isOfLaterVersion(Array("{\"path\":1}".utf8)))
        #expect(!StoredResource.isOfLaterVersion([]))
    }

    /// Read back from a journal, a row of a later version and a damaged one each fail with the
    /// error that says which, and how to crawl into the folder again.
    @Test func theJournalSaysWhetherARowIsDamagedOrOfALaterVersion() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("stored-resource-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let url = "http://a.test/"
        do {
            let journal = try CrawlJournal(folder: root, fresh: true)
            try journal.ledger.saved(url, Self.fieldsOfEveryShape)
            try journal.flush()
        }
        let database = try SQLiteDatabase(path: root + "/.mirror/journal.sqlite")
        for (first, expected) in [(4, CrawlJournalError.ofLaterVersion(url: url)), (0, .unreadable(url: url))] {
            try database.statement("UPDATE resources SET json = ? WHERE url = ?")
                .run([.blob([UInt8(first)] + StoredResource.encode(Self.fieldsOfEveryShape).dropFirst()), .text(url)])
            let journal = try CrawlJournal(folder: root, fresh: false)
            let error = #expect(throws: CrawlJournalError.self) { try journal.ledger.resource(of: url) }
            #expect(error?.description == expected.description)
            #expect(error?.description.contains("remove the folder's .mirror/journal.sqlite") == true)
        }
    }

    /// Found by fuzzing (`mirror-fuzz journal-row`): a damaged row whose time reads as a NaN was
    /// read, and its resource was not equal to itself; a manifest cannot hold such a time.
    @Test(arguments: [Double.nan, .infinity, -.infinity]) func timesThatAreNoNumberAreRefused(time: Double) {
        for damaged in [(time, 1.0), (1.0, time)] {
            var resource = Self.fieldsOfEveryShape
            resource.record.requestTime = damaged.0
            resource.record.responseTime = damaged.1
            #expect(StoredResource.decode(StoredResource.encode(resource)) == nil)
        }
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
        // The ETag's value (after Content-Type's tag, name and value codes, and its own tag and
        // name code) said to run three bytes past the fields' end, though not past the row's.
        #expect(encoded[start + 5] == 5)
        let past = fields.count - 6 + 3
        #expect(start + 6 + past < encoded.count && past < 0x80)
        damaged = encoded
        damaged[start + 5] = UInt8(past)
        #expect(StoredResource.decode(damaged) == nil)
    }
}
