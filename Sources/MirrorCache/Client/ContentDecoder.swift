import MirrorCompression
import MirrorCore
public import NIOHTTP1

/// Turns a received body into the identity body the cache stores: a gzip or deflate
/// Content-Encoding is decoded (with a size limit against gzip bombs), and the stored head keeps
/// the storable fields only, with a Content-Length that matches the stored bytes. Used for every
/// response fetched, and for responses imported from web archives, so both are stored alike.
public final class ContentDecoder {
    private let received: HTTPHeaders
    private let decoder: GzipDecoder?
    private var decoded: [UInt8] = []

    /// - Parameters:
    ///   - headers: the response's headers as received.
    ///   - limit: the most decoded bytes accepted.
    public init(headers: HTTPHeaders, limit: Int) throws {
        received = headers
        let encoding = headers.first(name: "content-encoding")?.lowercased().trimmingASCIIWhitespace()
        decoder = try ["gzip", "x-gzip", "deflate"].contains(encoding ?? "") ? GzipDecoder(limit: limit) : nil
    }

    /// Whether the body is content-encoded, so that its decoded length is known only at its end.
    public var decodes: Bool { decoder != nil }

    /// Decodes `chunk` of the received body into `writer`.
    public func write(_ chunk: [UInt8], to writer: BodyWriter) throws {
        guard let decoder else { return try writer.write(chunk) }
        decoded.removeAll(keepingCapacity: true)
        try decoder.decompress(chunk, into: &decoded)
        try writer.write(decoded)
    }

    /// Checks that an encoded body ended cleanly (an empty body needs no gzip trailer).
    public func finish(_ writer: BodyWriter) throws {
        if let decoder, writer.size > 0 || decoder.totalOut > 0 { try decoder.finish() }
    }

    /// The headers to store with the decoded body of `size` bytes.
    public func storedHeaders(size: Int) -> HTTPHeaders {
        var headers = CachePolicy.storableHeaders(received)
        if decoder != nil { headers.remove(name: "content-encoding") }
        headers.replaceOrAdd(name: "Content-Length", value: String(size))
        return headers
    }
}
