import MirrorCache
import MirrorCompression
import MirrorCore
import NIOHTTP1

/// Turns the records of one or more WARC files into cache entries, as `ArchiveImporter` reads
/// them: `response` records are stored with their status, headers and date (bodies de-chunked
/// and decoded as the cache stores fetched ones), `revisit` records with the body they point at
/// (identical-payload-digest) or as a refresh of the stored headers (server-not-modified, like a
/// `304` response), and `request` records give the Vary keys. Everything else is counted and
/// skipped with a reason.
final class RecordImporter: WARCRecordHandler {
    /// An HTTP request or response being read from a record.
    private final class Message {
        enum Kind {
            case request, response
            case revisit(profile: String)
        }

        let kind: Kind
        let url: String
        let header: WARCHeader
        let date: Double
        var check: DigestCheck?
        var headBytes: [UInt8] = []
        var head: HTTPHead?
        var body: BodyPipe?

        init(kind: Kind, url: String, header: WARCHeader, date: Double) {
            self.kind = kind
            self.url = url
            self.header = header
            self.date = date
            check = header["WARC-Block-Digest"].flatMap(DigestCheck.init)
        }
    }

    /// A payload on its way into a body file: de-chunked, then decoded.
    private final class BodyPipe {
        let writer: BodyWriter
        let decoder: ContentDecoder
        let dechunker: ChunkedDecoder?
        private var scratch: [UInt8] = []

        init(headers: HTTPHeaders, store: CacheStore, limit: Int) throws {
            writer = try store.makeBodyWriter(limit: limit)
            decoder = try ContentDecoder(headers: headers, limit: limit)
            let chunked = HTTPList.members(headers["transfer-encoding"]).contains { $0.lowercased() == "chunked" }
            dechunker = chunked ? ChunkedDecoder() : nil
        }

        func feed(_ bytes: ArraySlice<UInt8>) throws {
            guard let dechunker else { return try decoder.write(Array(bytes), to: writer) }
            scratch.removeAll(keepingCapacity: true)
            try dechunker.decode(bytes, into: &scratch)
            try decoder.write(scratch, to: writer)
        }

        func finish() throws {
            scratch.removeAll()
            try dechunker?.finish(into: &scratch)
            try decoder.write(scratch, to: writer)
            try decoder.finish(writer)
        }
    }

    private struct Request {
        let url: String
        let headers: HTTPHeaders
        let time: Double
    }

    /// A complete response waiting to be stored.
    private struct Response {
        let url: String
        let status: Int
        let headers: HTTPHeaders
        let writer: BodyWriter
        let time: Double
        let payloadDigest: String?
    }

    /// An HTTP head longer than this is not read.
    static let headLimit = 256 << 10

    let store: CacheStore
    let bodyLimit: Int
    private(set) var summary = ImportSummary()
    private var current: Message?
    private var skipReason: String?
    /// The last request read, for the response after it.
    private var lastRequest: Request?
    /// A response with Vary waiting for the request record that may follow it (warcio and
    /// browsertrix write the response first).
    private var pending: Response?
    /// The URL each payload digest was stored under, for revisit records that point at it.
    private var payloadURLs: [String: String] = [:]

    init(store: CacheStore, bodyLimit: Int) {
        self.store = store
        self.bodyLimit = bodyLimit
    }

    func begin(_ header: WARCHeader, offset: Int) throws {
        summary.records += 1
        current = nil
        skipReason = nil
        let type = header.type
        let kind: Message.Kind
        switch type {
        case "request": kind = .request
        case "response": kind = .response
        case "revisit": kind = .revisit(profile: header["WARC-Profile"] ?? "")
        default:
            skipReason = "\(type.isEmpty ? "untyped" : type) record"
            return
        }
        if let truncated = header["WARC-Truncated"] {
            skipReason = "truncated by its writer (\(truncated))"
        } else if let uri = header.targetURI, let url = URLNormalizer.normalize(uri) {
            let isHTTP = (header["Content-Type"] ?? "").lowercased().hasPrefix("application/http")
            if isHTTP || (type == "revisit" && header["Content-Length"] == "0") {
                current = Message(kind: kind, url: url, header: header, date: WARCDate(header["WARC-Date"] ?? "")?.seconds ?? 0)
            } else {
                skipReason = "\(type) record that is not an HTTP message"
            }
        } else {
            skipReason = "\(type) record of a URI that is not http(s)"
        }
    }

    func block(_ bytes: ArraySlice<UInt8>) throws {
        guard let message = current else { return }
        bytes.withUnsafeBytes { message.check?.update($0) }
        do {
            if message.head != nil {
                try message.body?.feed(bytes)
                return
            }
            message.headBytes += bytes
            guard let end = HTTPHead.end(in: message.headBytes) else {
                if message.headBytes.count > Self.headLimit { drop("HTTP head longer than 256 KiB") }
                return
            }
            guard let head = HTTPHead.parse(message.headBytes[..<end]) else { return drop("unreadable HTTP head") }
            message.head = head
            if case .response = message.kind, head.status != nil {
                message.body = try BodyPipe(headers: head.headers, store: store, limit: bodyLimit)
                try message.body?.feed(message.headBytes[end...])
            }
            message.headBytes = []
        } catch {
            try drop(because: error)
        }
    }

    func end() throws {
        defer { current = nil }
        if let reason = skipReason { return summary.skip(reason) }
        guard let message = current else { return }
        if let check = message.check, !check.matches { return summary.skip("block digest does not match") }
        switch message.kind {
        case .request:
            guard let head = message.head, head.status == nil else { return summary.skip("unreadable HTTP request") }
            summary.requests += 1
            let request = Request(url: message.url, headers: head.headers, time: message.date)
            if let waiting = pending, waiting.url == request.url {
                pending = nil
                try commit(waiting, request: request)
            } else {
                lastRequest = request
            }
        case .response:
            guard let head = message.head, let status = head.status, let body = message.body else {
                return summary.skip("unreadable HTTP response")
            }
            guard status >= 200 else { return summary.skip("informational (1xx) response") }
            do { try body.finish() } catch { return try drop(because: error, counting: true) }
            if status == 304 { return try refresh(message.url, with: head.headers, at: message.date) }
            try queue(
                Response(
                    url: message.url, status: status, headers: body.decoder.storedHeaders(size: body.writer.size),
                    writer: body.writer, time: message.date, payloadDigest: message.header["WARC-Payload-Digest"]))
        case .revisit(let profile):
            if profile.hasSuffix("/server-not-modified") {
                return try refresh(message.url, with: message.head?.headers ?? [:], at: message.date)
            }
            guard profile.hasSuffix("/identical-payload-digest") else { return summary.skip("revisit with an unknown profile") }
            try revisit(message)
        }
    }

    /// Notes why reading stopped before the end.
    func record(_ error: String) {
        summary.error = error
    }

    /// Stores what is still waiting and flushes the cache to disk.
    func finish() throws {
        try flushPending()
        try store.synchronize()
    }

    // MARK: Storing

    private func queue(_ response: Response) throws {
        try flushPending()
        let request = lastRequest?.url == response.url ? lastRequest : nil
        lastRequest = nil
        if request == nil && response.headers.contains(name: "vary") {
            pending = response
        } else {
            try commit(response, request: request)
        }
    }

    private func flushPending() throws {
        guard let waiting = pending else { return }
        pending = nil
        try commit(waiting, request: nil)
    }

    private func commit(_ response: Response, request: Request?) throws {
        let varyKey = CachePolicy.varyKey(responseHeaders: response.headers, request: request?.headers ?? [:]) ?? ""
        let head = CachedResponseHead(
            status: response.status, headers: response.headers,
            requestTime: request?.time ?? response.time, responseTime: response.time)
        try store.store(url: response.url, varyKey: varyKey, head: head, body: response.writer)
        summary.imported += 1
        if let digest = response.payloadDigest { payloadURLs[digest] = response.url }
    }

    /// A revisit with the identical-payload-digest profile: the body of the response it points
    /// at (found by payload digest among those imported, else by the URI it refers to, else its
    /// own URI), with the revisit's own head when it has one.
    private func revisit(_ message: Message) throws {
        try flushPending()
        let refersTo = message.header["WARC-Refers-To-Target-URI"].map { uri in
            uri.hasPrefix("<") && uri.hasSuffix(">") ? String(uri.dropFirst().dropLast()) : uri
        }
        let sources = [
            message.header["WARC-Payload-Digest"].flatMap { payloadURLs[$0] },
            refersTo.flatMap(URLNormalizer.normalize), message.url,
        ].compactMap { $0 }
        for source in sources {
            for entry in try store.entries(for: source) {
                guard let body = store.body(of: entry) else { continue }
                let writer = try store.makeBodyWriter(limit: bodyLimit)
                do {
                    try body.forEachChunk { try writer.write($0) }
                } catch let error as CacheError where error.code == .corruptBody {
                    continue
                }
                let status = message.head?.status ?? entry.status
                let headers =
                    try message.head.map { try ContentDecoder(headers: $0.headers, limit: bodyLimit).storedHeaders(size: writer.size) }
                    ?? entry.headers
                return try queue(
                    Response(
                        url: message.url, status: status, headers: headers, writer: writer, time: message.date,
                        payloadDigest: message.header["WARC-Payload-Digest"]))
            }
        }
        summary.skip("revisit of a response in neither the archive nor the cache")
    }

    /// A 304 or server-not-modified revisit: the stored response's headers are refreshed (RFC 9111 §4.3.4).
    private func refresh(_ url: String, with headers: HTTPHeaders, at time: Double) throws {
        try flushPending()
        let request = lastRequest?.url == url ? lastRequest : nil
        lastRequest = nil
        let entries = try store.entries(for: url)
        let requestHeaders = request?.headers ?? [:]
        guard
            let entry = entries.first(where: { CachePolicy.varyKey(responseHeaders: $0.headers, request: requestHeaders) == $0.varyKey })
                ?? entries.first
        else {
            return summary.skip("not-modified response to a response in neither the archive nor the cache")
        }
        let head = CachePolicy().updated(entry.head, with: headers, requestTime: request?.time ?? time, responseTime: time)
        try store.updateHead(of: entry, to: head)
        summary.updated += 1
    }

    // MARK: Skipping

    private func drop(_ reason: String) {
        skipReason = reason
        current = nil
    }

    /// Drops the current record for a body that cannot be stored (too large, undecodable, badly
    /// chunked); an I/O failure of the cache is not the record's fault and is thrown.
    private func drop(because error: any Error, counting: Bool = false) throws {
        let reason: String
        switch error {
        case let error as CacheError where error.code == .bodyTooLarge: reason = "body larger than \(bodyLimit) bytes"
        case CompressionError.outputLimitExceeded: reason = "body larger than \(bodyLimit) bytes"
        case is CompressionError: reason = "Content-Encoding that does not decode"
        case is ChunkedDecoder.Malformed: reason = "malformed chunked body"
        default: throw error
        }
        if counting { summary.skip(reason) } else { drop(reason) }
    }
}
