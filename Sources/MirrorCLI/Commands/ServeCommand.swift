import ArgumentParser
import Foundation
import MirrorBundle
import MirrorHTTPServer
import MirrorServe

/// `mirror serve`: serve a mirrored folder or bundle over HTTP, offline.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a mirrored folder or bundle over HTTP, offline, as if it were the site.",
        discussion: """
            A bundle is served without unpacking it. Pages answer at the paths the site used \
            (/library/os.html on the first seed's host; /_/HOST[:PORT]/PATH for every host) \
            and at their paths in the folder (/127.0.0.1_8000/library/os.html); / opens the \
            start page (with seeds on several hosts, a page linking each); /_/search searches \
            the pages. Types, redirects, ETag/Last-Modified (304) and byte ranges (206) are \
            answered as a web server does; what the crawl did not save gets a 404 page.

            Examples:
              mirror serve docs
              mirror serve docs.tar.gz --port 8000
              mirror serve docs --host 0.0.0.0 --quiet
            """
    )

    @Argument(help: ArgumentHelp("A mirrored folder or bundle.", valueName: "DIR|FILE.tar.gz")) var source: String
    @Option(help: "The address to listen on (0.0.0.0 for every interface).") var host: String = "127.0.0.1"
    @Option(help: "The port to listen on (0 picks a free one).") var port: Int = 8080
    @Flag(help: "Do not log each request.") var quiet = false
    @Option(
        help: ArgumentHelp(
            "Bytes of a bundle's files kept once inflated, in a temporary file with no name in $TMPDIR that the kernel sends from (0: inflate for every request).",
            valueName: "SIZE"))
    var inflatedCache = ByteSize(bytes: 1 << 30)

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535") }
    }

    func run() async throws {
        DescriptorLimit.raise()
        let files = try Self.open(source, inflatedCache: Int(clamping: inflatedCache.bytes))
        let server: HTTPServer
        var log: (@Sendable (RequestLogLine) -> Void)?
        if !quiet { log = { @Sendable line in Output.line(line.description) } }
        do {
            server = try await HTTPServer.start(
                ServerConfiguration(host: host, port: port),
                responder: SiteResponder(files: files), log: log)
        } catch {
            throw CommandFailure("cannot listen on \(host):\(port): \(error); pick another --port or --host", status: .io)
        }
        let shown = host.contains(":") ? "[\(host)]" : host
        Output.line("serving \(source) at http://\(shown):\(server.port)/ (Ctrl-C to stop)")
        Output.line("search its pages at http://\(shown):\(server.port)\(SiteResponder.searchPath)")
        let interrupt = InterruptHandler(notice: "stopping") { Task { await server.shutdown() } }
        await server.wait()
        interrupt.cancel()
    }

    /// A folder or a bundle, opened; a clear error and exit code otherwise.
    static func open(_ source: String, inflatedCache: Int) throws -> any SiteFiles {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: source, isDirectory: &isDirectory) else {
            throw CommandFailure("\(source): no such folder or bundle", status: .io)
        }
        do {
            if isDirectory.boolValue { return try FolderFiles(folder: source) }
            return try BundleFiles(
                bundle: source, copyDirectory: FileManager.default.temporaryDirectory.path,
                copyLimit: inflatedCache)
        } catch let error as ServeError {
            throw CommandFailure(error.description, status: .io)
        } catch let error as BundleError {
            throw CommandFailure("\(source): \(error)", status: .badBundle)
        }
    }
}
