import Foundation
import MirrorBundle
import MirrorCore
import MirrorCrawlTesting
import MirrorHTTPServer
import MirrorServe
import MirrorSite
import MirrorTestSupport

/// A mirror crawled from the `links` fixture site (redirects, queries, spaces, UTF-8 names, a
/// page beside a folder) plus a 1.5 MB binary, served by `mirror serve`'s server on a free port.
struct ServedMirror {
    /// What the server reads: the folder, or a bundle packed from it (read in place), with
    /// the files it inflates whole copied for the kernel to send or inflated every time.
    enum Source: String, CaseIterable, Sendable { case folder, bundle, bundleInflatedEveryTime }

    let harness: CrawlHarness
    let origin: TestOrigin
    let server: HTTPServer
    let manifest: SiteManifest
    var folder: String { harness.root + "/out" }

    /// The binary's bytes: seeded, so every test gets the same file.
    static let binary: [UInt8] = {
        var generator = SeededGenerator(seed: 1)
        return (0..<1_500_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }()

    /// Crawls, then serves the folder or its bundle, and runs `body` with the mirror as
    /// `with(configuration:withLong:files:isolation:_:)` does.
    static func with<T>(
        _ source: Source, configuration: ServerConfiguration = ServerConfiguration(port: 0),
        withLong: Bool = false, isolation: isolated (any Actor)? = #isolation,
        _ body: (ServedMirror) async throws -> T
    ) async throws -> T {
        try await with(
            configuration: configuration, withLong: withLong,
            files: { folder in
                switch source {
                case .folder: return try FolderFiles(folder: folder)
                case .bundle, .bundleInflatedEveryTime:
                    try BundlePacker().pack(folder: folder, to: folder + ".tar.gz")
                    return try BundleFiles(
                        bundle: folder + ".tar.gz", copyDirectory: folder + "/..",
                        copyLimit: source == .bundle ? 1 << 30 : 0)
                }
            }, isolation: isolation, body)
    }

    /// A file larger than the kernel's socket buffers (4 MiB at most by default), made of `binary`.
    static let long: [UInt8] = Array([[UInt8]](repeating: binary, count: 11).joined())

    /// Crawls, then serves the folder (or what `files` makes of it) with `configuration`, and runs
    /// `body` with the mirror; `withLong` also saves `long` at `/media/long.bin`. The server and the
    /// origin are shut down and the crawl's folder removed before it returns, also when the crawl or
    /// `body` throws (the error is rethrown then).
    static func with<T>(
        configuration: ServerConfiguration = ServerConfiguration(port: 0), withLong: Bool = false,
        files: (String) throws -> any SiteFiles = { try FolderFiles(folder: $0) },
        isolation: isolated (any Actor)? = #isolation,
        _ body: (ServedMirror) async throws -> T
    ) async throws -> T {
        try await TestOrigin.with(site: .named("links"), isolation: isolation) { origin in
            origin.route("/media/film.bin") { _ in
                TestResponse(status: 200, headers: ["Content-Type": "application/octet-stream", "ETag": "\"film\""], body: binary)
            }
            origin.route("/media/long.bin") { _ in
                TestResponse(status: 200, headers: ["Content-Type": "application/octet-stream"], body: long)
            }
            return try await CrawlHarness.with(isolation: isolation) { harness in
                let seeds = [origin.url("/"), origin.url("/media/film.bin")] + (withLong ? [origin.url("/media/long.bin")] : [])
                _ = try await harness.crawl(seeds)
                var configuration = configuration
                configuration.port = 0
                let responder = SiteResponder(files: try files(harness.root + "/out"))
                return try await HTTPServer.with(configuration, responder: responder, isolation: isolation) { server in
                    try await body(ServedMirror(harness: harness, origin: origin, server: server, manifest: try harness.manifest()))
                }
            }
        }
    }

    /// Sends one request with exactly this target and these header lines, on a new connection.
    func request(_ target: String, method: String = "GET", headers: [String] = []) async throws -> RawHTTPResponse {
        let port = server.port
        return try await RawHTTPConnection.run {
            let connection = try RawHTTPConnection(port: port)
            try connection.send(
                (["\(method) \(target) HTTP/1.1", "Host: 127.0.0.1:\(port)"] + headers + ["Connection: close", "", ""])
                    .joined(separator: "\r\n"))
            return try connection.readResponse(headOnly: method == "HEAD")
        }
    }

    /// The bytes of a file of the folder.
    func file(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + path)))
    }

    /// The target of `url` on the server: its path and query for the origin's URLs.
    func target(of url: String) -> String {
        String(url.dropFirst(origin.baseURL.count))
    }

    /// A folder path as a link in a page would spell it.
    static func encoded(_ path: String) -> String {
        "/"
            + path.split(separator: "/", omittingEmptySubsequences: false)
            .map {
                $0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: ";"))) ?? String($0)
            }
            .joined(separator: "/")
    }
}

extension HTTPServer {
    /// Starts a server as `start` does, runs `body` with it, and awaits `shutdown()` afterwards, also
    /// when `body` throws (its error is rethrown then).
    static func with<T>(
        _ configuration: ServerConfiguration, responder: any HTTPResponder,
        isolation: isolated (any Actor)? = #isolation, _ body: (HTTPServer) async throws -> T
    ) async throws -> T {
        let server = try await start(configuration, responder: responder)
        let result: T
        do {
            result = try await body(server)
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
        return result
    }
}
