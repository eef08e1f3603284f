import Foundation
import MirrorArchive
import MirrorCache
import MirrorCompression
import MirrorCrawlTesting
import MirrorSite
import MirrorTestSupport
import Testing

/// `mirror cache import` of WARC and WACZ files: ours (the round trip back to the same folder),
/// hand-made ones with every kind of record other tools write, damaged ones, and wget's.
@Suite("WARC and WACZ import")
struct ArchiveImportTests {
    enum Source: String, CaseIterable { case cache, folder }
    enum Format: String, CaseIterable { case warc, wacz }

    /// The promise of an archive: imported into an empty cache, it rebuilds the same folder with
    /// no network — the same files byte for byte, the same manifest apart from times, which a
    /// WARC keeps to the microsecond. An export of a folder holds all it saved (also a 302 that
    /// no cache may keep), so its rebuild is the crawled folder; an export of a cache holds
    /// what the cache holds, so its rebuild is what an offline crawl of that cache gives.
    @Test(arguments: Source.allCases, Format.allCases)
    func anExportImportedIntoAnEmptyCacheRebuildsTheFolderOffline(source: Source, format: Format) async throws {
        try await ArchivedSite.with { site in
            let path = "\(site.root)/site.\(format.rawValue)"
            let archiveSource = source == .cache ? ArchiveSource.cache(try site.store()) : try ArchiveSource.folder(site.root + "/out")
            let exported =
                format == .warc
                ? try ArchiveExporter().exportWARC(archiveSource, to: path)
                : try ArchiveExporter().exportWACZ(archiveSource, to: path)
            try await CrawlHarness.with { offline in
                let summary = try ArchiveImporter(store: try CacheStore(directory: offline.cache)).importArchive(path)
                #expect(summary.error == nil)
                #expect(summary.imported == exported.responses + exported.revisits)
                #expect(summary.requests == summary.imported)
                #expect(summary.skipped == ["warcinfo record": 1])
                site.origin.clearLog()
                let report = try await offline.crawl([site.origin.url("/")] + ArchivedSite.extraPaths.map(site.origin.url), mode: .offline)
                #expect(site.origin.requests.isEmpty, "the origin was asked for \(site.origin.requests.map(\.uri))")
                #expect(report.failures.isEmpty, "\(report.failures)")
                let reference = source == .folder ? "out" : "offline-reference"
                if source == .cache {
                    _ = try await site.harness.crawl(
                        [site.origin.url("/")] + ArchivedSite.extraPaths.map(site.origin.url),
                        output: reference, mode: .offline)
                }
                let excluded = [".mirror/manifest.json", ".mirror/journal", ".mirror/tmp"]
                let original = FolderContents.files(site.root + "/" + reference, excluding: excluded)
                #expect(original.count > 20)
                let rebuilt = FolderContents.files(offline.root + "/out", excluding: excluded)
                #expect(rebuilt.keys.sorted() == original.keys.sorted())
                for (path, bytes) in original where rebuilt[path] != bytes {
                    Issue.record(
                        "\(path) differs:\n\(String(decoding: rebuilt[path] ?? Data(), as: UTF8.self))\nwas\n\(String(decoding: bytes, as: UTF8.self))"
                    )
                }
                try expectSameApartFromMicroseconds(try offline.manifest(), try site.harness.manifest(reference))
            }
        }
    }

    private func expectSameApartFromMicroseconds(_ rebuilt: SiteManifest, _ original: SiteManifest) throws {
        func withoutTimes(_ manifest: SiteManifest) -> SiteManifest {
            var copy = manifest
            for url in copy.resources.keys {
                copy.resources[url]!.record.requestTime = 0
                copy.resources[url]!.record.responseTime = 0
            }
            copy.redirects = copy.redirects.mapValues {
                SiteManifest.Redirect(
                    location: $0.location, status: $0.status,
                    record: ResponseRecord(headers: $0.record.httpHeaders, requestTime: 0, responseTime: 0, varyKey: $0.record.varyKey))
            }
            return copy
        }
        let (left, right) = (withoutTimes(rebuilt), withoutTimes(original))
        #expect(left.seeds == right.seeds && left.index == right.index)
        #expect(left.redirects == right.redirects)
        #expect(left.resources.keys.sorted() == right.resources.keys.sorted())
        for (url, resource) in right.resources where left.resources[url] != resource {
            Issue.record("\(url): \(String(describing: left.resources[url])) was \(resource)")
        }
        for (url, resource) in original.resources {
            let record = try #require(rebuilt.resources[url]?.record)
            #expect(abs(record.responseTime - resource.record.responseTime) < 1e-6, "\(url)")
            #expect(abs(record.requestTime - resource.record.requestTime) < 1e-6, "\(url)")
        }
        #expect(original.resources.values.contains { $0.record.varyKey == "accept-encoding=gzip, deflate" })
    }

    /// Every kind of record other writers produce: used when it can be, else counted by reason.
    @Test func recordsAreUsedOrCountedWithAReason() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("warc-import-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let text = Array(String(repeating: "bonjour, les archives\n", count: 50).utf8)
        let gzipped = try GzipEncoder.compress(text)
        let wire = HandMadeWARC.chunked(gzipped, size: 100)
        var warc = HandMadeWARC()
        warc.add("warcinfo", uri: nil, contentType: "application/warc-fields", block: Array("software: hand\r\n".utf8))
        // A request, then its response: chunked, gzip, with Vary (as wget and Heritrix write them).
        warc.add(
            "request", uri: "http://h.test/vary.txt", date: "2024-05-01T11:59:59Z", contentType: "application/http; msgtype=request",
            block: HandMadeWARC.http("GET /vary.txt HTTP/1.1", [("Host", "h.test"), ("Accept-Language", "fr")]))
        warc.add(
            "response", uri: "http://h.test/vary.txt", contentType: "application/http; msgtype=response",
            fields: [("WARC-Payload-Digest", TestDigest.sha1(wire))],
            block: HandMadeWARC.http(
                "HTTP/1.1 200 OK",
                [
                    ("Content-Type", "text/plain"), ("Vary", "Accept-Language"),
                    ("Transfer-Encoding", "chunked"), ("Content-Encoding", "gzip"),
                    ("Connection", "close"),
                ], payload: wire))
        // A response, then its request (as warcio and browsertrix write them).
        warc.add(
            "response", uri: "http://h.test/later.txt", contentType: "application/http; msgtype=response",
            block: HandMadeWARC.http(
                "HTTP/1.1 200 OK", [("Vary", "accept-language"), ("Content-Length", "5")], payload: Array("later".utf8)))
        warc.add(
            "request", uri: "http://h.test/later.txt", contentType: "application/http; msgtype=request",
            block: HandMadeWARC.http("GET /later.txt HTTP/1.1", [("Host", "h.test"), ("Accept-Language", "de")]))
        // Revisits: of vary.txt's payload under another URL, and a 304 refreshing vary.txt.
        warc.add(
            "revisit", uri: "http://h.test/copy.txt", contentType: "application/http; msgtype=response",
            fields: [
                ("WARC-Profile", "http://netpreserve.org/warc/1.0/revisit/identical-payload-digest"),
                ("WARC-Payload-Digest", TestDigest.sha1(wire)),
            ],
            block: HandMadeWARC.http("HTTP/1.1 200 OK", [("Content-Type", "text/plain"), ("Content-Encoding", "gzip")]))
        warc.add(
            "request", uri: "http://h.test/vary.txt", contentType: "application/http; msgtype=request",
            block: HandMadeWARC.http("GET /vary.txt HTTP/1.1", [("Host", "h.test"), ("Accept-Language", "fr")]))
        warc.add(
            "revisit", uri: "http://h.test/vary.txt", date: "2024-05-02T08:00:00Z", contentType: "application/http; msgtype=response",
            fields: [("WARC-Profile", "http://netpreserve.org/warc/1.1/revisit/server-not-modified")],
            block: HandMadeWARC.http("HTTP/1.1 304 Not Modified", [("Cache-Control", "max-age=99")]))
        // What cannot be used.
        warc.add("metadata", uri: "http://h.test/vary.txt", contentType: "application/warc-fields", block: Array("via: x\r\n".utf8))
        warc.add("resource", uri: "http://h.test/log.txt", contentType: "text/plain", block: Array("log".utf8))
        warc.add("response", uri: "dns:h.test", contentType: "text/dns", block: Array("h.test. 60 IN A 10.0.0.1\n".utf8))
        warc.add(
            "response", uri: "http://h.test/cut.bin", contentType: "application/http; msgtype=response",
            fields: [("WARC-Truncated", "length")], block: HandMadeWARC.http("HTTP/1.1 200 OK", [], payload: [1, 2]))
        warc.add(
            "response", uri: "http://h.test/flipped.txt", contentType: "application/http; msgtype=response",
            block: HandMadeWARC.http("HTTP/1.1 200 OK", [], payload: Array("x".utf8)), wrongDigest: true)
        warc.add(
            "response", uri: "http://h.test/garbage.txt", contentType: "application/http; msgtype=response",
            block: Array("nonsense\r\n\r\nbody".utf8))
        warc.add(
            "response", uri: "http://h.test/badgzip.txt", contentType: "application/http; msgtype=response",
            block: HandMadeWARC.http("HTTP/1.1 200 OK", [("Content-Encoding", "gzip")], payload: Array("not gzip".utf8)))
        warc.add(
            "revisit", uri: "http://h.test/orphan.txt", contentType: "application/http; msgtype=response",
            fields: [
                ("WARC-Profile", "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"),
                ("WARC-Payload-Digest", "sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"),
            ],
            block: HandMadeWARC.http("HTTP/1.1 200 OK", []))
        try warc.write(to: root + "/hand.warc")

        let store = try CacheStore(directory: root + "/cache")
        let summary = try ArchiveImporter(store: store).importArchive(root + "/hand.warc")
        #expect(summary.error == nil)
        #expect(summary.records == 16)
        #expect(summary.imported == 3 && summary.updated == 1 && summary.requests == 3)
        #expect(
            summary.skipped == [
                "warcinfo record": 1, "metadata record": 1, "resource record": 1,
                "response record of a URI that is not http(s)": 1, "truncated by its writer (length)": 1,
                "block digest does not match": 1, "unreadable HTTP head": 1, "Content-Encoding that does not decode": 1,
                "revisit of a response in neither the archive nor the cache": 1,
            ])

        let vary = try #require(store.entries(for: "http://h.test/vary.txt").first)
        #expect(vary.varyKey == "accept-language=fr")
        #expect(try store.body(of: vary)?.collect() == text, "de-chunked and decoded")
        #expect(vary.headers["Content-Encoding"].isEmpty && vary.headers["Transfer-Encoding"].isEmpty && vary.headers["Connection"].isEmpty)
        #expect(vary.headers["Content-Length"] == [String(text.count)])
        #expect(vary.headers["Cache-Control"] == ["max-age=99"], "the 304 revisit refreshed the headers")
        #expect(vary.responseTime == WARCDate("2024-05-02T08:00:00Z")?.seconds)
        let later = try #require(store.entries(for: "http://h.test/later.txt").first)
        #expect(later.varyKey == "accept-language=de", "the request after the response gave the key")
        let copy = try #require(store.entries(for: "http://h.test/copy.txt").first)
        #expect(try store.body(of: copy)?.collect() == text)
        #expect(copy.headers["Content-Encoding"].isEmpty)
        #expect(try store.entries(for: "http://h.test/flipped.txt").isEmpty)
    }

    /// A damaged archive stops at the damaged record, names its offset, and keeps what came before.
    @Test(arguments: ["truncated", "corrupt"])
    func aDamagedArchiveKeepsWhatCameBeforeTheDamagedRecord(damage: String) async throws {
        try await ArchivedSite.with { site in
            let path = site.root + "/site.warc.gz"
            try ArchiveExporter().exportWARC(.cache(try site.store()), to: path)
            let records = try ReadRecords.read(path)
            var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            let index = try #require(records.indices.filter { records[$0].header.type == "response" }.dropFirst(5).first)
            let start = records[index].offset
            let end = records[index + 1].offset
            if damage == "truncated" {
                bytes.removeSubrange(((start + end) / 2)...)
            } else {
                for offset in (start + 20)..<(start + 40) { bytes[offset] ^= 0x5A }
            }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let store = try CacheStore(directory: site.root + "/imported")
            let summary = try ArchiveImporter(store: store).importArchive(path)
            let error = try #require(summary.error)
            #expect(error.contains("record at offset \(start)"), "\(error)")
            #expect(error.contains(damage == "truncated" ? "truncated" : "damaged"), "\(error)")
            let before = records[..<index].filter { ["response", "revisit"].contains($0.header.type) }
            #expect(summary.imported == before.count)
            for record in before {
                #expect(try !store.entries(for: try #require(record.header["WARC-Target-URI"])).isEmpty)
            }
            #expect(try store.entries(for: try #require(records[index].header["WARC-Target-URI"])).isEmpty)
        }
    }

    /// A WARC need not be compressed record by record: plain, or one gzip stream, it imports the same.
    @Test func plainAndSingleStreamWARCsImport() async throws {
        try await ArchivedSite.with { site in
            let path = site.root + "/site.warc.gz"
            let exported = try ArchiveExporter().exportWARC(.cache(try site.store()), to: path)
            let plain = try GzipDecoder.decompress(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
            try Data(plain).write(to: URL(fileURLWithPath: site.root + "/plain.warc"))
            try Data(try GzipEncoder.compress(plain)).write(to: URL(fileURLWithPath: site.root + "/single.warc.gz"))
            for name in ["plain.warc", "single.warc.gz"] {
                let store = try CacheStore(directory: site.root + "/cache-" + name)
                let summary = try ArchiveImporter(store: store).importArchive(site.root + "/" + name)
                #expect(summary.error == nil && summary.imported == exported.responses + exported.revisits, "\(name)")
                #expect(try store.allEntries().map(\.digest) == (try site.store().allEntries().map(\.digest)), "\(name)")
            }
        }
    }

    @Test func filesThatAreNoArchiveAreRefused() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("not-\(UUID().uuidString).warc").path
        try Data("<html>not an archive</html>".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try CacheStore(directory: path + ".cache")
        defer { try? FileManager.default.removeItem(atPath: path + ".cache") }
        #expect(throws: ArchiveError.self) { try ArchiveImporter(store: store).importArchive(path) }
        #expect(ArchiveFormat.detect(path) == nil)
    }
}

extension ArchiveImportTests {
    /// A WARC written by another tool: wget's (Debian's package; scripts/setup installs it) of a
    /// fixture site imports, and an offline crawl from it rebuilds the folder an online crawl gives.
    @Test func aWARCWrittenByWgetRebuildsTheFolderOffline() async throws {
        try await TestOrigin.with(site: .named("plain")) { origin in
            try await CrawlHarness.with { online in
                let report = try await online.crawl([origin.url("/")])
                #expect(report.failures.isEmpty)
                _ = try await ChildProcess.output(
                    "/usr/bin/wget",
                    [
                        "--quiet", "--mirror", "--page-requisites", "--execute", "robots=off", "--directory-prefix", online.root + "/wget",
                        "--warc-file", online.root + "/wget", origin.url("/"),
                    ])
                try await CrawlHarness.with { offline in
                    let summary = try ArchiveImporter(store: try CacheStore(directory: offline.cache))
                        .importArchive(online.root + "/wget.warc.gz")
                    #expect(summary.error == nil)
                    #expect(summary.imported > 5 && summary.requests == summary.imported, "\(summary)")
                    origin.clearLog()
                    let rebuilt = try await offline.crawl([origin.url("/")], mode: .offline)
                    #expect(origin.requests.isEmpty, "the origin was asked for \(origin.requests.map(\.uri))")
                    #expect(rebuilt.failures.isEmpty, "\(rebuilt.failures)")
                    let excluded = [".mirror/manifest.json", ".mirror/journal", ".mirror/tmp"]
                    #expect(
                        FolderContents.files(offline.root + "/out", excluding: excluded)
                            == FolderContents.files(online.root + "/out", excluding: excluded))
                }
            }
        }
    }
}
