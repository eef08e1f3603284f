import Crypto
import MirrorCore
import MirrorHTML
import NIOHTTP1

/// Writes responses as WARC 1.1 records: for each a `request` record (the request line, `Host`
/// and the fields its Vary key names, so a reader recovers the key) and a `response` record
/// holding the HTTP head and the body, or, for a body already written, a `revisit` record with
/// the identical-payload-digest profile pointing at the first. Bodies are stored as the cache
/// keeps them (de-chunked, decoded): a `Transfer-Encoding` header is kept renamed
/// `X-Orig-Transfer-Encoding` and `Content-Length` is the body's length, so the block and
/// payload digests hold however a reader reads the message.
final class WARCRecorder {
    /// What an index and a page list need to know of a written response or revisit record.
    struct Written {
        var index: CDXJLine
        var recordID: String
        /// The title of an HTML page (a 200 response with an HTML type): nil for other responses,
        /// the URL when the page has no title.
        var pageTitle: String?
    }

    /// The first record of a body that other responses share.
    private struct Original {
        var recordID: String
        var url: String
        var date: WARCDate
        var payloadDigest: String
        var title: String?
    }

    /// Bodies up to this size are read once, into memory; larger ones are read twice (digests
    /// first, since they go in the record's header), so memory stays flat.
    static let inMemoryLimit = 4 << 20

    let writer: WARCWriter
    let filename: String
    private let shared: Set<String>
    private var originals: [String: Original] = [:]

    init(writer: WARCWriter, filename: String, sharedBodies: Set<String>) {
        self.writer = writer
        self.filename = filename
        self.shared = sharedBodies
    }

    /// Writes the `warcinfo` record that opens the file.
    func writeInfo(software: String, seeds: [String], date: WARCDate) throws {
        var text =
            "software: \(software)\r\nformat: WARC File Format 1.1\r\n"
            + "conformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n"
        for seed in seeds { text += "seed: \(seed)\r\n" }
        let block = Array(text.utf8)
        var header = WARCHeader()
        header.append("WARC-Type", "warcinfo")
        header.append("WARC-Record-ID", Self.recordID("warcinfo \(filename) \(date.text)"))
        header.append("WARC-Date", date.text)
        header.append("WARC-Filename", filename)
        header.append("Content-Type", "application/warc-fields")
        try write(header, block: block)
    }

    /// Writes a response's records; throws `ArchiveError.damagedBody` (having written nothing)
    /// when its body does not match its digest.
    func write(_ response: ArchivedResponse) throws -> Written {
        let date = WARCDate(seconds: response.responseTime)
        let name = "\(response.url) \(response.varyKey) \(date.microseconds)"
        let responseID = Self.recordID("response " + name)
        let head = HTTPHead.response(status: response.status, headers: Self.exportedHeaders(response.headers, size: response.size))
        let mime = response.headers.first(name: "content-type").map(CDXJLine.mime)
        let isPage = response.status == 200 && (mime ?? "").lowercased().contains("html")
        if response.size > 0, let original = originals[response.sha256] {
            try writeRequest(response, id: Self.recordID("request " + name), concurrentTo: responseID)
            var header = recordHeader("revisit", id: responseID, url: response.url, date: date)
            header.append("WARC-Profile", "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest")
            header.append("WARC-Refers-To-Target-URI", original.url)
            header.append("WARC-Refers-To-Date", original.date.text)
            header.append("WARC-Refers-To", original.recordID)
            header.append("Content-Type", "application/http; msgtype=response")
            header.append("WARC-Payload-Digest", original.payloadDigest)
            let (offset, length) = try write(header, block: head)
            let index = CDXJLine(
                url: response.url, date: date, mime: "warc/revisit", status: response.status,
                digest: original.payloadDigest, length: length, offset: offset, filename: filename)
            return Written(index: index, recordID: responseID, pageTitle: isPage ? original.title ?? response.url : nil)
        }

        // The digests come first (they go in the header): a small body is read once, a large one twice.
        var payloadHasher = Insecure.SHA1()
        var blockHasher = Insecure.SHA1()
        blockHasher.update(data: head)
        var prefix: [UInt8] = []
        let bytes: [UInt8]? = response.size <= Self.inMemoryLimit ? try response.bytes() : nil
        if let bytes {
            payloadHasher.update(data: bytes)
            blockHasher.update(data: bytes)
            prefix = Array(bytes.prefix(64 << 10))
        } else {
            try response.forEachChunk { chunk in
                payloadHasher.update(data: chunk)
                blockHasher.update(data: chunk)
                if prefix.count < 64 << 10 { prefix += chunk.prefix((64 << 10) - prefix.count) }
            }
        }
        let payloadDigest = WARCDigest.sha1(payloadHasher.finalize())
        try writeRequest(response, id: Self.recordID("request " + name), concurrentTo: responseID)
        var header = recordHeader("response", id: responseID, url: response.url, date: date)
        header.append("Content-Type", "application/http; msgtype=response")
        header.append("WARC-Block-Digest", WARCDigest.sha1(blockHasher.finalize()))
        header.append("WARC-Payload-Digest", payloadDigest)
        try writer.begin(header, contentLength: head.count + response.size)
        try writer.append(head)
        do {
            if let bytes { try writer.append(bytes) } else { try response.forEachChunk { try writer.append($0) } }
        } catch ArchiveError.damagedBody(let url) {
            // Read well once, then not: the file changed under the export, and the record is half written.
            throw ArchiveError.io(path: writer.file.path, message: "the body of \(url) changed while it was exported")
        }
        let (offset, length) = try writer.end()
        let title = isPage ? HTMLTitle.title(in: prefix, contentType: response.headers.first(name: "content-type")) : nil
        if response.size > 0 && shared.contains(response.sha256) {
            originals[response.sha256] = Original(
                recordID: responseID, url: response.url, date: date,
                payloadDigest: payloadDigest, title: title)
        }
        let index = CDXJLine(
            url: response.url, date: date, mime: mime, status: response.status, digest: payloadDigest,
            length: length, offset: offset, filename: filename)
        return Written(index: index, recordID: responseID, pageTitle: isPage ? title ?? response.url : nil)
    }

    /// The `request` record: `GET`, `Host`, and the request fields the response's Vary key names.
    private func writeRequest(_ response: ArchivedResponse, id: String, concurrentTo responseID: String) throws {
        guard let parts = URLParts(response.url) else { return }
        var headers: HTTPHeaders = ["Host": parts.authority]
        // By bytes, and only lines that start with a field name: a key read from someone else's
        // manifest may hold anything, and a mark after `=` makes one `Character` with it.
        for line in response.varyKey.utf8.split(separator: UInt8(ascii: "\n")) {
            guard let equals = line.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = Substring(line[..<equals])
            guard HTTPToken.isToken(name) else { continue }
            headers.add(name: String(name), value: String(Substring(line[line.index(after: equals)...])))
        }
        let block = HTTPHead.request(
            target: (parts.path.isEmpty ? "/" : parts.path) + (parts.query.map { "?" + $0 } ?? ""),
            headers: headers)
        var header = recordHeader("request", id: id, url: response.url, date: WARCDate(seconds: response.requestTime))
        header.append("WARC-Concurrent-To", responseID)
        header.append("Content-Type", "application/http; msgtype=request")
        try write(header, block: block)
    }

    /// Writes a record whose whole block is in memory, with its block digest.
    @discardableResult
    private func write(_ header: WARCHeader, block: [UInt8]) throws -> (offset: Int, length: Int) {
        var header = header
        header.append("WARC-Block-Digest", WARCDigest.sha1(Insecure.SHA1.hash(data: block)))
        try writer.begin(header, contentLength: block.count)
        try writer.append(block)
        return try writer.end()
    }

    private func recordHeader(_ type: String, id: String, url: String, date: WARCDate) -> WARCHeader {
        var header = WARCHeader()
        header.append("WARC-Type", type)
        header.append("WARC-Record-ID", id)
        header.append("WARC-Date", date.text)
        header.append("WARC-Target-URI", url)
        return header
    }

    /// The stored headers as the record carries them: `Transfer-Encoding` renamed (the body is
    /// de-chunked) and `Content-Length` the body's length.
    static func exportedHeaders(_ headers: HTTPHeaders, size: Int) -> HTTPHeaders {
        var result = HTTPHeaders()
        var hasLength = false
        for (name, value) in headers {
            switch name.lowercased() {
            case "transfer-encoding":
                result.add(name: "X-Orig-Transfer-Encoding", value: value)
            case "content-length":
                if !hasLength { result.add(name: name, value: String(size)) }
                hasLength = true
            default:
                result.add(name: name, value: value)
            }
        }
        if !hasLength { result.add(name: "Content-Length", value: String(size)) }
        return result
    }

    /// A record ID made from `name` (a name-based UUID, version 5 layout over SHA-1), so the
    /// same responses always export to the same IDs.
    static func recordID(_ name: String) -> String {
        var bytes = Array(Insecure.SHA1.hash(data: Array("mirror warc record \(name)".utf8)).prefix(16))
        bytes[6] = bytes[6] & 0x0F | 0x50
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = Hex.string(bytes)
        let groups = [
            hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4),
            hex.dropFirst(20),
        ]
        return "<urn:uuid:\(groups.joined(separator: "-"))>"
    }
}
