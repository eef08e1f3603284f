import MirrorCore
import MirrorHTML
public import MirrorHTTPServer
public import MirrorSite
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// `mirror serve`: answers GET and HEAD from a mirror (folder or bundle) as the site would —
/// the origin's types, the redirects the crawl saw, validators and byte ranges — and a 404
/// page for anything the crawl did not save.
public struct SiteResponder: HTTPResponder {
    private let files: any SiteFiles
    private let routes: SiteRoutes
    /// The routes of recent targets, files with their headers: resolving normalizes URLs and a
    /// file's headers need its dates parsed and formatted, which cost more than the rest of a
    /// response. Bounded: emptied when it holds `memoCount`.
    private let memo = NIOLockedValueBox<[MemoKey: Known]>([:])
    private static let memoCount = 4096

    private let search: SearchPage

    /// The path of the search page (`/_/search`).
    public static let searchPath = SearchPage.path

    public init(files: any SiteFiles) {
        self.files = files
        routes = SiteRoutes(manifest: files.manifest)
        search = SearchPage(files: files)
    }

    public func respondImmediately(to request: ServerRequest) -> ServerResponse? {
        switch plan(request) {
        case .answered(let response): return response
        case .read(let pending):
            do {
                guard let opened = try openQuickly(pending) else { return nil }
                return response(pending, opened)
            } catch {
                return .text(.internalServerError, "\(error)\n")
            }
        }
    }

    public func respond(to request: ServerRequest) async -> ServerResponse {
        switch plan(request) {
        case .answered(let response): return response
        case .read(let pending):
            do {
                let opened = try await BlockingWork.run { [self] in try open(pending) }
                return response(pending, opened)
            } catch {
                return .text(.internalServerError, "\(error)\n")
            }
        }
    }

    /// What a request gets: a response made without touching the files, or a file to read.
    private enum Plan {
        case answered(ServerResponse)
        case read(PendingFile)
    }

    /// A response whose status and headers are ready, and the file whose bytes it takes.
    private struct PendingFile: Sendable {
        let path: String
        let range: Range<Int>
        /// The file's size in the manifest.
        let size: Int
        let status: HTTPResponseStatus
        let headers: HTTPHeaders
    }

    private func plan(_ request: ServerRequest) -> Plan {
        guard request.method == .GET || request.method == .HEAD else {
            var response = ServerResponse.text(.methodNotAllowed, "A mirror answers GET and HEAD only.\n")
            response.headers.add(name: "Allow", value: "GET, HEAD")
            return .answered(response)
        }
        let target = Substring(request.head.uri)
        if target.prefix(while: { $0 != "?" && $0 != "#" }) == SearchPage.path, !routes.hasHost("search") {
            let query = target.firstIndex(of: "?").map { target[target.index(after: $0)...] }
            return .answered(search.respond(query: query, served: routes.served))
        }
        let known = known(request)
        if let facts = known.facts { return file(facts, request: request) }
        switch known.route {
        case .file:  // a file with no digest in the manifest
            return .answered(notFound(url: nil))
        case .redirect(let status, let location):
            var response = ServerResponse.text(
                HTTPResponseStatus(statusCode: status),
                "<!DOCTYPE html><p>Moved to <a href=\"\(HTMLEscaping.escape(location))\">\(HTMLEscaping.escape(location))</a></p>\n",
                contentType: "text/html; charset=utf-8")
            response.headers.add(name: "Location", value: location)
            return .answered(response)
        case .startPage(let seeds):
            return .answered(startPage(seeds))
        case .notFound(let url):
            return .answered(notFound(url: url))
        case .badRequest(let reason):
            return .answered(.text(.badRequest, reason + "\n"))
        }
    }

    /// What the responses to a target start from, worked out once (see `memo`).
    private struct Known: Sendable {
        let route: SiteRoute
        /// For a file's route, when the manifest has the file's digest.
        let facts: FileFacts?
    }

    /// What every response with a file's bytes shares.
    private struct FileFacts: Sendable {
        let path: String
        let status: Int
        let representation: Representation
        /// Content-Type, ETag, Cache-Control and Last-Modified.
        let headers: HTTPHeaders
    }

    private struct MemoKey: Hashable {
        let host: String?
        let target: String
    }

    private func known(_ request: ServerRequest) -> Known {
        let key = MemoKey(host: request.headers.first(name: "host"), target: request.head.uri)
        if let known = memo.withLockedValue({ $0[key] }) { return known }
        let route = routes.resolve(target: key.target, host: key.host)
        var facts: FileFacts?
        if case .file(let path, let resource) = route { facts = self.facts(path, resource: resource) }
        let known = Known(route: route, facts: facts)
        memo.withLockedValue { memo in
            if memo.count >= Self.memoCount { memo.removeAll(keepingCapacity: true) }
            memo[key] = known
        }
        return known
    }

    private func facts(_ path: String, resource: SiteManifest.Resource?) -> FileFacts? {
        guard let digest = resource?.fileDigest ?? files.manifest.index else { return nil }
        let lastModified = resource.flatMap { $0.lastModified.flatMap(HTTPDate.parse) ?? Int64($0.record.responseTime) }
        let representation = Representation(size: digest.size, etag: "\"\(digest.sha256.prefix(32))\"", lastModified: lastModified)
        var headers: HTTPHeaders = [
            "Content-Type": resource.map { Self.contentType($0, path: path) } ?? "text/html; charset=utf-8",
            "ETag": representation.etag!,
            "Cache-Control": "no-cache",
        ]
        if let lastModified { headers.add(name: "Last-Modified", value: HTTPDate.format(lastModified)) }
        return FileFacts(path: path, status: resource?.status ?? 200, representation: representation, headers: headers)
    }

    private func file(_ facts: FileFacts, request: ServerRequest) -> Plan {
        let (path, representation, status, size) = (facts.path, facts.representation, facts.status, facts.representation.size)
        var headers = facts.headers
        // Ranges and conditions are for the 200 responses of the site, not its saved error pages.
        let answer = status == 200 ? representation.answer(method: request.method, headers: request.headers) : .full
        let range: Range<Int>
        var responseStatus = HTTPResponseStatus(statusCode: status)
        switch answer {
        case .notModified:
            headers.remove(name: "Content-Type")
            return .answered(ServerResponse(status: .notModified, headers: headers))
        case .preconditionFailed:
            return .answered(.text(.preconditionFailed, "The precondition of the request does not hold for \(request.head.uri).\n"))
        case .unsatisfiable:
            var response = ServerResponse.text(.rangeNotSatisfiable, "The range is outside the \(size) bytes of the file.\n")
            response.headers.add(name: "Content-Range", value: Representation.contentRange(nil, of: size))
            return .answered(response)
        case .full:
            range = 0..<size
            if status == 200 { headers.add(name: "Accept-Ranges", value: "bytes") }
        case .partial(let part):
            range = part
            responseStatus = .partialContent
            headers.add(name: "Accept-Ranges", value: "bytes")
            headers.add(name: "Content-Range", value: Representation.contentRange(part, of: size))
        }
        headers.add(name: "Content-Length", value: String(range.count))
        guard request.method == .GET else { return .answered(ServerResponse(status: responseStatus, headers: headers)) }
        return .read(PendingFile(path: path, range: range, size: size, status: responseStatus, headers: headers))
    }

    /// Opens the pending file (blocking, for a bundle) and readies it (`ready`).
    private func open(_ pending: PendingFile) throws -> (file: SiteFile, first: ByteBuffer?) {
        guard let file = try files.open(pending.path, range: pending.range) else {
            throw ServeError.read(path: pending.path, reason: "missing from the mirror")
        }
        return try ready(file, pending)
    }

    /// The pending file, readied, when it can be opened without blocking; nil otherwise.
    private func openQuickly(_ pending: PendingFile) throws -> (file: SiteFile, first: ByteBuffer?)? {
        try files.openQuickly(pending.path, range: pending.range).map { try ready($0, pending) }
    }

    /// Checks the opened file's size against the manifest's and, for a file that is read
    /// rather than sent by the kernel, reads its first piece.
    private func ready(_ file: SiteFile, _ pending: PendingFile) throws -> (file: SiteFile, first: ByteBuffer?) {
        let path = pending.path
        guard file.fileSize == pending.size else {
            file.close()
            throw ServeError.read(
                path: path, reason: "changed since the crawl (\(file.fileSize) bytes, the manifest says \(pending.size)); crawl again")
        }
        guard case .reader(let reader) = file else { return (file, nil) }
        do {
            return (file, try reader.next())
        } catch {
            reader.close()
            throw error
        }
    }

    /// The response for an opened file: sent by the kernel, from memory when its first piece
    /// is all of it, else streamed.
    private func response(_ pending: PendingFile, _ opened: (file: SiteFile, first: ByteBuffer?)) -> ServerResponse {
        let (path, range) = (pending.path, pending.range)
        let reader: any SiteFileReader
        switch opened.file {
        case .descriptor(let handle, _, let start):
            return ServerResponse(
                status: pending.status, headers: pending.headers,
                body: .file(handle, start + range.lowerBound..<start + range.upperBound))
        case .reader(let fileReader):
            reader = fileReader
        }
        guard let first = opened.first, first.readableBytes < range.count else {
            reader.close()
            return ServerResponse(status: pending.status, headers: pending.headers, body: .bytes(opened.first ?? ByteBuffer()))
        }
        return ServerResponse(
            status: pending.status, headers: pending.headers,
            body: .stream { writer in
                defer { reader.close() }
                try await writer.write(first)
                var sent = first.readableBytes
                while sent < range.count {
                    guard let piece = try await BlockingWork.run({ try reader.next() }) else {
                        throw ServeError.read(path: path, reason: "ended early")
                    }
                    try await writer.write(piece)
                    sent += piece.readableBytes
                }
            })
    }

    /// The origin's type; for a response that had none, the one of the file's extension.
    public static func contentType(_ resource: SiteManifest.Resource, path: String) -> String {
        if let type = resource.contentType, !type.isEmpty { return type }
        let name = path.split(separator: "/").last ?? ""
        return MediaTypeExtensions.type(forFileName: name) ?? "application/octet-stream"
    }

    private func startPage(_ seeds: [String]) -> ServerResponse {
        let links = seeds.map { seed in
            "<li><a href=\"\(HTMLEscaping.escape(routes.served(seed)))\">\(HTMLEscaping.escape(seed))</a></li>"
        }
        let page = """
            <!DOCTYPE html>
            <html><head><meta charset="utf-8"><title>Mirrored sites</title></head>
            <body><h1>Mirrored sites</h1>
            <ul>
            \(links.joined(separator: "\n"))
            </ul>
            <p>Search their pages:</p>
            \(SearchPage.form(""))</body></html>

            """
        return .text(.ok, page, contentType: "text/html; charset=utf-8")
    }

    private func notFound(url: String?) -> ServerResponse {
        let what = url.map { "<a href=\"\(HTMLEscaping.escape($0))\">\(HTMLEscaping.escape($0))</a>" } ?? "This address"
        let page = """
            <!DOCTYPE html>
            <html><head><meta charset="utf-8"><title>Not in this mirror</title></head>
            <body><h1>Not in this mirror</h1>
            <p>\(what) was not saved by the crawl, so it cannot be shown offline.</p>
            <p><a href="/">Open the start page</a>, or search this mirror's pages:</p>
            \(SearchPage.form(url.map(SearchPage.words(of:)) ?? ""))</body></html>

            """
        return .text(.notFound, page, contentType: "text/html; charset=utf-8")
    }
}
