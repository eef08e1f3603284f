import Crypto
import Foundation
import MirrorArchive
import MirrorCache
import MirrorCompression
import MirrorTestSupport
import Testing
import ZIPFoundation

/// `mirror export` of a real crawl, read back record by record: digests recomputed here,
/// headers, request/response pairs, revisits, one gzip member per record, the WACZ's index,
/// page list and data package.
@Suite("WARC and WACZ export")
struct ArchiveExportTests {
    @Test func everyRecordOfTheWARCChecksOut() async throws {
        try await ArchivedSite.with { site in
            let store = try site.store()
            let path = site.root + "/site.warc.gz"
            let summary = try ArchiveExporter().exportWARC(.cache(store), to: path)
            let records = try ReadRecords.read(path)
            let entries = try store.allEntries()
            #expect(summary.responses + summary.revisits == entries.count)
            #expect(summary.revisits >= 2, "/ and /index.html, /same-a.txt and /same-b.txt share bodies")
            #expect(records.first?.header.type == "warcinfo")
            #expect(String(decoding: records[0].block, as: UTF8.self).contains("format: WARC File Format 1.1"))

            var byID: [String: ReadRecords.Record] = [:]
            for record in records {
                let id = try #require(record.header["WARC-Record-ID"])
                #expect(id.hasPrefix("<urn:uuid:") && byID[id] == nil)
                byID[id] = record
                #expect(record.header.version == "WARC/1.1")
                #expect(record.header["WARC-Block-Digest"] == TestDigest.sha1(record.block), "\(id)")
                #expect(
                    record.header["WARC-Date"]?.range(
                        of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$"#,
                        options: .regularExpression) != nil)
                if let uri = record.header["WARC-Target-URI"] { #expect(!uri.hasPrefix("<") && uri.hasPrefix("http")) }
            }
            for record in records where ["response", "revisit"].contains(record.header.type) {
                let url = try #require(record.header["WARC-Target-URI"])
                let entry = try #require(entries.first { $0.url == url }, "\(url) is not in the cache")
                let (head, payload) = record.http
                #expect(head.hasPrefix("HTTP/1.1 \(entry.status) "))
                #expect(record.httpField("Transfer-Encoding") == nil && record.httpField("Content-Encoding") == nil)
                #expect(record.header["Content-Type"] == "application/http; msgtype=response")
                let body = try #require(store.body(of: entry)).collect()
                #expect(record.httpField("Content-Length") == String(body.count), "\(url)")
                let request = try #require(
                    records.first { $0.header.type == "request" && $0.header["WARC-Concurrent-To"] == record.header["WARC-Record-ID"] })
                #expect(request.header["WARC-Target-URI"] == url)
                #expect(request.http.head.hasPrefix("GET "))
                if record.header.type == "response" {
                    #expect(payload == body, "\(url)")
                    #expect(record.header["WARC-Payload-Digest"] == TestDigest.sha1(payload))
                } else {
                    #expect(payload.isEmpty)
                    #expect(record.header["WARC-Profile"] == "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest")
                    let original = try #require(byID[record.header["WARC-Refers-To"] ?? ""])
                    #expect(original.header.type == "response" && original.offset < record.offset)
                    #expect(original.header["WARC-Target-URI"] == record.header["WARC-Refers-To-Target-URI"])
                    #expect(original.header["WARC-Date"] == record.header["WARC-Refers-To-Date"])
                    #expect(record.header["WARC-Payload-Digest"] == TestDigest.sha1(body))
                    #expect(original.http.payload == body)
                }
            }
            let encoded = try #require(
                records.first { $0.header["WARC-Target-URI"] == site.origin.url("/encoded.txt") && $0.header.type == "request" })
            #expect(encoded.httpField("accept-encoding") == "gzip, deflate", "the request record carries the Vary field")
        }
    }

    @Test func eachRecordIsOneGzipMemberAtItsOffset() async throws {
        try await ArchivedSite.with { site in
            let path = site.root + "/site.warc.gz"
            try ArchiveExporter().exportWARC(.cache(try site.store()), to: path)
            let file = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            let records = try ReadRecords.read(path)
            let ends = records.dropFirst().map(\.offset) + [file.count]
            for (record, end) in zip(records, ends) {
                let member = try GzipDecoder.decompress(Array(file[record.offset..<end]))
                let header = "WARC/1.1\r\n".utf8
                #expect(member.starts(with: header), "no record starts at \(record.offset)")
                #expect(member.suffix(record.block.count + 4) == ArraySlice(record.block + Array("\r\n\r\n".utf8)))
            }
        }
    }

    @Test func theWACZHoldsTheWARCStoredItsSortedIndexPagesAndDigests() async throws {
        try await ArchivedSite.with { site in
            let path = site.root + "/site.wacz"
            let summary = try ArchiveExporter().exportWACZ(.folder(site.root + "/out"), to: path)
            let archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
            var files: [String: Data] = [:]
            for entry in archive {
                var data = Data()
                _ = try archive.extract(entry) { data.append($0) }
                files[entry.path] = data
            }
            #expect(
                Set(files.keys) == [
                    "datapackage.json", "datapackage-digest.json", "pages/pages.jsonl", "indexes/index.cdx",
                    "archive/data.warc.gz",
                ])
            #expect(archive["archive/data.warc.gz"]?.isCompressed == false, "the WARC must be stored, not deflated")

            struct Package: Decodable {
                struct Resource: Decodable {
                    let name: String
                    let path: String
                    let hash: String
                    let bytes: Int
                }
                let resources: [Resource]
                let wacz_version: String
                let mainPageURL: String?
            }
            let package = try JSONDecoder().decode(Package.self, from: try #require(files["datapackage.json"]))
            #expect(package.wacz_version == "1.1.1")
            #expect(package.mainPageURL == site.origin.url("/"))
            #expect(Set(package.resources.map(\.path)) == Set(files.keys).subtracting(["datapackage.json", "datapackage-digest.json"]))
            for resource in package.resources {
                let data = try #require(files[resource.path])
                #expect(resource.hash == "sha256:" + TestDigest.sha256(data), "\(resource.path)")
                #expect(resource.bytes == data.count)
            }
            let digest = try JSONDecoder().decode([String: String].self, from: try #require(files["datapackage-digest.json"]))
            #expect(digest["hash"] == "sha256:" + TestDigest.sha256(try #require(files["datapackage.json"])))

            let warcPath = site.root + "/inside.warc.gz"
            try #require(files["archive/data.warc.gz"]).write(to: URL(fileURLWithPath: warcPath))
            let records = try ReadRecords.read(warcPath)
            let lines = String(decoding: try #require(files["indexes/index.cdx"]), as: UTF8.self).split(separator: "\n").map(String.init)
            #expect(lines.count == summary.responses + summary.revisits)
            for (earlier, later) in zip(lines, lines.dropFirst()) {
                #expect(Array(earlier.utf8).lexicographicallyPrecedes(Array(later.utf8)), "the index is not sorted: \(later)")
            }
            struct Fields: Decodable {
                let url: String
                let mime: String?
                let status: String
                let digest: String
                let length: String
                let offset: String
                let filename: String
            }
            for line in lines {
                let parts = line.split(separator: " ", maxSplits: 2)
                let fields = try JSONDecoder().decode(Fields.self, from: Data(parts[2].utf8))
                #expect(parts[0] == SURT.key(fields.url))
                #expect(fields.filename == "data.warc.gz")
                let record = try #require(records.first { String($0.offset) == fields.offset }, "no record at \(fields.offset)")
                #expect(record.header["WARC-Target-URI"] == fields.url)
                #expect(record.header["WARC-Payload-Digest"] == fields.digest)
                #expect(record.header.type == (fields.mime == "warc/revisit" ? "revisit" : "response"))
                #expect(record.header["WARC-Date"].flatMap(WARCDate.init)?.timestamp == String(parts[1]))
            }
            let pages = String(decoding: try #require(files["pages/pages.jsonl"]), as: UTF8.self).split(separator: "\n")
            #expect(pages.first == #"{"format": "json-pages-1.0", "id": "pages", "title": "All Pages"}"#)
            #expect(pages.count == summary.pages + 1 && summary.pages > 3)
            #expect(pages.contains { $0.contains(#""url": "\#(site.origin.url("/"))""#) && $0.contains(#""title": "Every kind of link""#) })
        }
    }

    @Test func prefixesAndDatesSelectResponses() async throws {
        try await ArchivedSite.with { site in
            var options = ArchiveExporter.Options()
            options.urlPrefixes = [site.origin.url("/same-")]
            let selected = try ArchiveExporter(options: options).exportWARC(.cache(try site.store()), to: site.root + "/same.warc.gz")
            #expect(selected.responses == 1 && selected.revisits == 1)
            let uris = try ReadRecords.read(site.root + "/same.warc.gz").compactMap { $0.header["WARC-Target-URI"] }
            #expect(Set(uris) == [site.origin.url("/same-a.txt"), site.origin.url("/same-b.txt")])
            options.urlPrefixes = []
            options.since = Date().timeIntervalSince1970 + 3600
            let none = try ArchiveExporter(options: options).exportWARC(.cache(try site.store()), to: site.root + "/none.warc.gz")
            #expect(none.responses == 0 && none.revisits == 0)
        }
    }
}
