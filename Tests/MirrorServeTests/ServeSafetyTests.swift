import Foundation
import MirrorSite
import MirrorTestSupport
import NIOCore
import Testing

@testable import MirrorHTTPServer
@testable import MirrorServe

/// Nothing outside the mirror is ever served, and no client can stop the server for others.
@Suite("mirror serve: hostile requests and clients")
struct ServeSafetyTests {
    static let secret = "TOP-SECRET-\(UUID().uuidString)"

    /// Puts a secret file beside the folder and one at the root of the temporary tree.
    func plantSecrets(beside mirror: ServedMirror) throws {
        try Self.secret.write(toFile: mirror.harness.root + "/secret.txt", atomically: true, encoding: .utf8)
    }

    @Test(arguments: [true, false])
    func hostilePathsNeverLeaveTheMirror(opensBeneath: Bool) async throws {
        try await ServedMirror.with(files: { try FolderFiles(folder: $0, opensBeneath: opensBeneath) }) { mirror in
            try plantSecrets(beside: mirror)
            let host = mirror.manifest.path(for: mirror.origin.url("/"))!.split(separator: "/")[0]
            let targets = [
                "/../secret.txt", "/..%2fsecret.txt", "/%2e%2e/secret.txt", "/%2e%2e%2fsecret.txt", "/%2E%2E%2Fsecret.txt",
                "/\(host)/../../secret.txt", "/\(host)/%2e%2e/%2e%2e/secret.txt", "/_/../secret.txt", "/_/..%2f..%2fsecret.txt",
                "/_/\(mirror.origin.authority)/../../../secret.txt", "/..\\secret.txt", "/%5c..%5csecret.txt",
                "/frame.html%00.png", "/%00", "//secret.txt", "/.%2e/.%2e/secret.txt", "/\(host)/..%5c..%5csecret.txt",
                "/.mirror/journal.sqlite", "/.mirror/../../secret.txt", "../secret.txt", "secret.txt", "*",
                "http://127.0.0.1/../secret.txt", "/\(String(repeating: "a/", count: 3000))",
            ]
            for target in targets {
                let response = try await mirror.request(target)
                #expect([400, 404, 414].contains(response.status), "\(target): \(response.status)")
                #expect(!response.text.contains(Self.secret), "\(target)")
            }
            let long = try await mirror.request("/frame.html", headers: ["X-Padding: \(String(repeating: "x", count: 200_000))"])
            #expect(long.status == 400 || long.status == 431)
            let after = try await mirror.request("/frame.html")
            #expect(after.status == 200, "the server still answers")
        }
    }

    /// With `openat2` (one call) and without (a walk of the components).
    @Test(arguments: [true, false])
    func symlinksInsideTheFolderAreNotFollowedOut(opensBeneath: Bool) async throws {
        try await ServedMirror.with(files: { try FolderFiles(folder: $0, opensBeneath: opensBeneath) }) { mirror in
            try plantSecrets(beside: mirror)
            let manager = FileManager.default
            let page = mirror.manifest.path(for: mirror.origin.url("/frame.html"))!
            try manager.removeItem(atPath: mirror.folder + "/" + page)
            try manager.createSymbolicLink(atPath: mirror.folder + "/" + page, withDestinationPath: mirror.harness.root + "/secret.txt")
            let outside = mirror.harness.root + "/outside"
            try manager.createDirectory(atPath: outside, withIntermediateDirectories: true)
            let deep = mirror.manifest.path(for: mirror.origin.url("/docs/"))!
            try Self.secret.write(toFile: outside + "/" + (deep as NSString).lastPathComponent, atomically: true, encoding: .utf8)
            let folder = mirror.folder + "/" + (deep as NSString).deletingLastPathComponent
            try manager.removeItem(atPath: folder)
            try manager.createSymbolicLink(atPath: folder, withDestinationPath: outside)
            for target in ["/frame.html", "/docs/", ServedMirror.encoded(page), ServedMirror.encoded(deep)] {
                let response = try await mirror.request(target)
                #expect(response.status == 500, "\(target): \(response.status)")
                #expect(!response.text.contains(Self.secret), "\(target)")
            }
        }
    }

    /// A folder named with a prepended mark at its end (U+0600) makes one `Character` with the
    /// `/` after it: split on `Character`s, `l\u{600}/outside` was one component, and `openat`
    /// followed the symbolic link `l\u{600}` in it. Components are split by bytes.
    @Test(arguments: [true, false])
    func aMarkBeforeASlashDoesNotHideASymlink(opensBeneath: Bool) async throws {
        try await ServedMirror.with { mirror in
            let outside = mirror.harness.root + "/outside"
            try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
            try Self.secret.write(toFile: outside + "/secret.txt", atomically: true, encoding: .utf8)
            try FileManager.default.createSymbolicLink(atPath: mirror.folder + "/l\u{600}", withDestinationPath: outside)
            let files = try FolderFiles(folder: mirror.folder, opensBeneath: opensBeneath)
            #expect(try files.open("l\u{600}/secret.txt", range: 0..<1) == nil)
            #expect(try files.open("l\u{600}/../.mirror/manifest.json", range: 0..<1) == nil)
        }
    }

    @Test func aFileChangedSinceTheCrawlIsNotPassedOffAsTheSavedOne() async throws {
        try await ServedMirror.with { mirror in
            let page = mirror.manifest.path(for: mirror.origin.url("/frame.html"))!
            try "edited".write(toFile: mirror.folder + "/" + page, atomically: true, encoding: .utf8)
            let response = try await mirror.request("/frame.html")
            #expect(response.status == 500)
            #expect(response.text.contains("changed since the crawl"))
        }
    }

    /// Timeouts of a second, for the tests of stalls; `headerTimeout` long unless given.
    static func stallingConfiguration(headerTimeout: TimeAmount = .seconds(60)) -> ServerConfiguration {
        var configuration = ServerConfiguration(port: 0)
        configuration.headerTimeout = headerTimeout
        configuration.stallTimeout = .seconds(1)
        return configuration
    }

    /// Sends `GET target` and reads the response's bytes as they come, `pause` after each read
    /// of at most 64 KiB, until `count` body bytes or the end; returns the body read. Once the
    /// head is in, reads nothing until `resumeWhen` holds (polled; at most a minute).
    static func download(
        _ target: String, port: Int, count: Int, pause: Double, pipelined: [String] = [],
        resumeWhen: (@Sendable () -> Bool)? = nil
    ) async throws -> [UInt8] {
        try await RawHTTPConnection.run {
            let connection = try RawHTTPConnection(port: port)
            try connection.send(([target] + pipelined).map { "GET \($0) HTTP/1.1\r\nHost: x\r\n\r\n" }.joined())
            var bytes: [UInt8] = []
            var bodyStart: Int?
            while bodyStart.map({ bytes.count - $0 < count }) ?? true {
                let more = try connection.receive(upTo: 64 << 10)
                if more.isEmpty { break }
                bytes += more
                if bodyStart == nil, let end = bytes.firstRange(of: Array("\r\n\r\n".utf8)) {
                    bodyStart = end.upperBound
                    let stopped = ContinuousClock.now
                    while let resumeWhen, !resumeWhen(), ContinuousClock.now - stopped < .seconds(60) {
                        Thread.sleep(forTimeInterval: 0.1)
                    }
                }
                Thread.sleep(forTimeInterval: pause)
            }
            return Array(bytes[(bodyStart ?? bytes.count)...])
        }
    }

    /// A client on a slow link takes longer than the stall timeout over a large file, but
    /// bytes keep moving: it gets all of it (a folder's file is handed to the kernel in pieces,
    /// whose completions show the progress; a bundle's streams in pieces).
    @Test(arguments: ServedMirror.Source.allCases)
    func aSlowButSteadyDownloadIsNotCut(source: ServedMirror.Source) async throws {
        let configuration = Self.stallingConfiguration(headerTimeout: .seconds(1))
        try await ServedMirror.with(source, configuration: configuration, withLong: true) { mirror in
            let started = ContinuousClock.now
            let body = try await Self.download("/media/long.bin", port: mirror.server.port, count: ServedMirror.long.count, pause: 0.01)
            #expect(ContinuousClock.now - started > .seconds(2), "slower than the stall timeout as a whole")
            #expect(body.count == ServedMirror.long.count)
            let isWhole = body == ServedMirror.long  // not printed whole when it fails
            #expect(isWhole)
        }
    }

    /// A server slower to make each piece of a file than the stall timeout (a bundle's file
    /// inflated on a loaded machine) does not cut a client that reads all it is sent.
    @Test func aServerSlowToMakeItsPiecesDoesNotCutTheDownload() async throws {
        let files = GeneratedFiles(size: 3 * GeneratedFiles.Reader.pieceSize, pieceDelay: 0.8)
        var configuration = Self.stallingConfiguration(headerTimeout: .seconds(1))
        configuration.stallTimeout = .milliseconds(300)
        try await HTTPServer.with(configuration, responder: SiteResponder(files: files)) { server in
            let body = try await Self.download("/big.bin", port: server.port, count: files.size, pause: 0)
            #expect(body.count == files.size)
        }
    }

    /// A client that stops reading a download is cut off once nothing moves for the stall
    /// timeout; what was in the kernel's buffers by then is all it gets. The client reads again
    /// once the server has closed the connection (a fixed pause was too short on a loaded machine,
    /// where the server had not filled the buffers yet).
    /// With a request sent behind it (pipelined), which has been read whole and waits its turn,
    /// the download is cut all the same.
    @Test(arguments: ServedMirror.Source.allCases, [false, true])
    func aDownloadThatStopsIsCut(source: ServedMirror.Source, withRequestBehind: Bool) async throws {
        try await ServedMirror.with(source, configuration: Self.stallingConfiguration(), withLong: true) { mirror in
            let server = mirror.server
            let body = try await Self.download(
                "/media/long.bin", port: server.port, count: ServedMirror.long.count, pause: 0,
                pipelined: withRequestBehind ? ["/frame.html"] : [],
                resumeWhen: { server.openConnections == 0 })
            #expect(body.count < ServedMirror.long.count, "\(body.count) bytes")
            let isPrefix = body == Array(ServedMirror.long.prefix(body.count))  // not printed whole when it fails
            #expect(isPrefix)
        }
    }

    /// The search page reads its query by bytes: a prepended mark (U+0600) before `&` made one
    /// `Character` with it, and `page` went unseen.
    @Test func theSearchQueryIsCutByBytes() {
        let parameters = SearchPage.parameters("q=x\u{600}&page=2&&flag&a=b=c")
        #expect(parameters == ["q": "x\u{600}", "page": "2", "flag": "", "a": "b=c"])
        #expect(SearchPage.parameters("q=a+b%20c") == ["q": "a b c"])
    }

    @Test func aRequestBodyThatStopsIsCut() async throws {
        try await ServedMirror.with(configuration: Self.stallingConfiguration()) { mirror in
            let port = mirror.server.port
            let closed = try await RawHTTPConnection.run {
                let connection = try RawHTTPConnection(port: port, timeout: 20)
                try connection.send("GET /frame.html HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n0123456789")
                return connection.isClosedByServer()
            }
            #expect(closed)
        }
    }

    @Test func idleAndTricklingClientsAreClosed() async throws {
        var configuration = ServerConfiguration(port: 0)
        configuration.headerTimeout = .milliseconds(500)
        try await ServedMirror.with(configuration: configuration) { mirror in
            let port = mirror.server.port
            let (idle, trickle, keptAlive) = try await RawHTTPConnection.run {
                let idle = try RawHTTPConnection(port: port)
                let trickle = try RawHTTPConnection(port: port)
                var trickleCut = false
                for byte in "GET /frame.html HTTP/1.1\r\nHost: x\r\n".utf8 where !trickleCut {
                    trickleCut = (try? trickle.send([byte])) == nil
                    Thread.sleep(forTimeInterval: 0.05)
                }
                let keptAlive = try RawHTTPConnection(port: port)
                try keptAlive.send("GET /frame.html HTTP/1.1\r\nHost: x\r\n\r\n")
                let answered = try keptAlive.readResponse().status == 200
                return (idle.isClosedByServer(), trickleCut || trickle.isClosedByServer(), answered && keptAlive.isClosedByServer())
            }
            #expect(idle, "a connection that sends nothing is closed")
            #expect(trickle, "a request head trickled for longer than the timeout is cut off")
            #expect(keptAlive, "an idle keep-alive connection is closed after its response")
        }
    }

    @Test func aFloodOfConnectionsDoesNotStopTheServer() async throws {
        var configuration = ServerConfiguration(port: 0)
        configuration.maxConnections = 20
        configuration.headerTimeout = .seconds(120)  // the first client idles while the flood is opened
        try await ServedMirror.with(configuration: configuration) { mirror in
            let port = mirror.server.port
            let result = try await RawHTTPConnection.run {
                let client = try RawHTTPConnection(port: port)
                try client.send("GET /frame.html HTTP/1.1\r\nHost: x\r\n\r\n")
                let first = try client.readResponse().status
                let flood = try (0..<200).map { _ in try RawHTTPConnection(port: port, timeout: 30) }
                try client.send("GET /frame.html HTTP/1.1\r\nHost: x\r\n\r\n")
                let during = try client.readResponse().status
                let refused = flood.suffix(100).filter { $0.isClosedByServer() }.count
                return (first, during, refused)
            }
            #expect(result.0 == 200)
            #expect(result.1 == 200, "a connection open before the flood goes on")
            #expect(result.2 == 100, "connections over the limit are closed at once")
            // The flood's sockets are closed by now, but the server counts them gone only once it
            // reads each close: until then a newcomer may still be over the limit.
            var after: Int?
            for _ in 0..<300 where after != 200 {
                after = try? await mirror.request("/frame.html").status
                if after != 200 { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(after == 200, "once the flood has gone, new clients are answered")
        }
    }

    @Test func oneHundredConcurrentClients() async throws {
        try await ServedMirror.with { mirror in
            let pages = mirror.manifest.resources.filter { $0.value.status == 200 }.sorted { $0.key < $1.key }
            let expected = try pages.map { try mirror.file($0.value.path) }
            let targets = pages.map { mirror.target(of: $0.key) }
            let port = mirror.server.port
            let wrong = try await withThrowingTaskGroup(of: Int.self) { group in
                for client in 0..<100 {
                    group.addTask {
                        try await RawHTTPConnection.run {
                            let connection = try RawHTTPConnection(port: port)
                            var wrong = 0
                            for step in 0..<5 {
                                let index = (client * 7 + step) % targets.count
                                try connection.send("GET \(targets[index]) HTTP/1.1\r\nHost: x\r\n\r\n")
                                let response = try connection.readResponse()
                                if response.status != 200 || response.body != expected[index] { wrong += 1 }
                            }
                            return wrong
                        }
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(wrong == 0)
        }
    }

    /// A 1 GiB file: a client that takes a few bytes and hangs up costs a few pieces, not the file.
    @Test func aClientHangingUpMidFileStopsTheReading() async throws {
        let counts = CountingFiles.Counts()
        let files = CountingFiles(base: GeneratedFiles(size: 1 << 30), counts: counts)
        try await HTTPServer.with(ServerConfiguration(port: 0), responder: SiteResponder(files: files)) { server in
            let port = server.port
            let started = try await RawHTTPConnection.run {
                let connection = try RawHTTPConnection(port: port)
                try connection.send("GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
                return try connection.receive(upTo: 1000).count
            }  // the connection is closed here, with nearly all of the file unsent
            #expect(started > 0)
            var waited = 0
            while counts.open != 0 && waited < 200 {
                try await Task.sleep(for: .milliseconds(50))
                waited += 1
            }
            #expect(counts.open == 0, "the file is closed")
            #expect(counts.bytesRead < 64 << 20, "and not read on: \(counts.bytesRead) bytes")
        }
    }
}

/// One large file of zeros at `http://example.org/big.bin`, made up as it is read.
struct GeneratedFiles: SiteFiles {
    /// Unchecked Sendable: one caller at a time, as the protocol says.
    final class Reader: SiteFileReader, @unchecked Sendable {
        let fileSize: Int
        private var remaining: Int
        private let pieceDelay: Double
        init(fileSize: Int, count: Int, pieceDelay: Double) {
            self.fileSize = fileSize
            remaining = count
            self.pieceDelay = pieceDelay
        }
        func next() throws -> ByteBuffer? {
            guard remaining > 0 else { return nil }
            Thread.sleep(forTimeInterval: pieceDelay)
            let count = min(remaining, Self.pieceSize)
            remaining -= count
            return ByteBuffer(repeating: 0, count: count)
        }
        func close() {}
    }

    let size: Int
    /// How long making each piece takes (the server's slowness, not the client's).
    let pieceDelay: Double
    let manifest: SiteManifest

    init(size: Int, pieceDelay: Double = 0) {
        self.size = size
        self.pieceDelay = pieceDelay
        var manifest = SiteManifest()
        manifest.seeds = ["http://example.org/big.bin"]
        manifest.resources["http://example.org/big.bin"] = SiteManifest.Resource(
            path: "example.org/big.bin", status: 200, contentType: "application/octet-stream", size: size,
            sha256: String(repeating: "0", count: 64), etag: nil, lastModified: nil,
            record: ResponseRecord(headers: [:], requestTime: 0, responseTime: 0, varyKey: ""))
        self.manifest = manifest
    }

    func open(_ path: String, range: Range<Int>) throws -> SiteFile? {
        path == "example.org/big.bin" ? .reader(Reader(fileSize: size, count: range.count, pieceDelay: pieceDelay)) : nil
    }
}

/// Counts the files a server opens and the bytes it reads.
struct CountingFiles: SiteFiles {
    final class Counts: @unchecked Sendable {
        private let lock = NSLock()
        private var openFiles = 0, read = 0
        var open: Int { lock.withLock { openFiles } }
        var bytesRead: Int { lock.withLock { read } }
        func opened(_ delta: Int) { lock.withLock { openFiles += delta } }
        func add(_ bytes: Int) { lock.withLock { read += bytes } }
    }

    struct Reader: SiteFileReader {
        let base: any SiteFileReader
        let counts: Counts
        var fileSize: Int { base.fileSize }
        func next() throws -> ByteBuffer? {
            let piece = try base.next()
            counts.add(piece?.readableBytes ?? 0)
            return piece
        }
        func close() {
            counts.opened(-1)
            base.close()
        }
    }

    let base: any SiteFiles
    let counts: Counts
    var manifest: SiteManifest { base.manifest }

    func open(_ path: String, range: Range<Int>) throws -> SiteFile? {
        guard case .reader(let reader)? = try base.open(path, range: range) else { return nil }
        counts.opened(1)
        return .reader(Reader(base: reader, counts: counts))
    }
}
