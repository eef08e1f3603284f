internal import CZlibShim

/// A streaming decompressor for gzip (one or more members) and zlib data,
/// with a hard limit on the output size so a small "gzip bomb" cannot fill
/// memory or disk.
public final class GzipDecoder {
    private let stream: UnsafeMutablePointer<z_stream>
    /// The most bytes this decoder will ever produce.
    public let limit: Int
    /// Bytes produced so far.
    public private(set) var totalOut = 0
    /// True once the last member's trailer has been read and no input is pending.
    public private(set) var isAtEnd = false
    private var scratch = [UInt8](repeating: 0, count: 256 * 1024)

    /// - Parameter limit: the most decompressed bytes to produce before failing.
    public init(limit: Int = .max) throws(CompressionError) {
        self.limit = limit
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // windowBits 15 + 32 reads gzip or zlib, detected from the header.
        let code = inflateInit2_(stream, 15 + 32, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard code == Z_OK else {
            stream.deallocate()
            throw .initializationFailed(code: code)
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
    }

    /// Decompresses `input` and appends the output to `output`.
    /// Several gzip members in a row are read as one stream (as `gzip -d` does).
    public func decompress(_ input: UnsafeRawBufferPointer, into output: inout [UInt8]) throws(CompressionError) {
        _ = try inflate(input, into: &output, acrossMembers: true)
    }

    /// Decompresses `input` up to the end of the current gzip member and returns how many bytes
    /// of `input` it used; the rest starts the next member (call `startNextMember()`, then pass
    /// it). Readers of formats with one member per record (WARC) learn where each member starts.
    public func decompressMember(_ input: UnsafeRawBufferPointer, into output: inout [UInt8]) throws(CompressionError) -> Int {
        try inflate(input, into: &output, acrossMembers: false)
    }

    /// Prepares to read the member after the one that ended (`isAtEnd`).
    public func startNextMember() {
        inflateReset(stream)
        isAtEnd = false
    }

    /// The inflate loop; returns how many input bytes were used.
    private func inflate(_ input: UnsafeRawBufferPointer, into output: inout [UInt8],
                         acrossMembers: Bool) throws(CompressionError) -> Int {
        guard input.count > 0 else { return 0 }
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
        stream.pointee.avail_in = uInt(input.count)
        defer { stream.pointee.next_in = nil }
        while true {
            if isAtEnd {
                guard acrossMembers, stream.pointee.avail_in > 0 else { break }
                // Another member follows the one that just ended (as `gzip -d` reads it).
                startNextMember()
            }
            var code: Int32 = Z_OK
            let produced = scratch.withUnsafeMutableBufferPointer { buffer -> Int in
                stream.pointee.next_out = buffer.baseAddress
                stream.pointee.avail_out = uInt(buffer.count)
                code = CZlibShim.inflate(stream, Z_NO_FLUSH)
                return buffer.count - Int(stream.pointee.avail_out)
            }
            switch code {
            case Z_OK, Z_BUF_ERROR: break
            case Z_STREAM_END: isAtEnd = true
            case Z_NEED_DICT: throw .corruptData(message: "a preset dictionary is required")
            default:
                throw .corruptData(message: stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(code)")
            }
            totalOut += produced
            guard totalOut <= limit else { throw .outputLimitExceeded(limit: limit) }
            output.append(contentsOf: scratch[0..<produced])
            let outputFull = stream.pointee.avail_out == 0
            if code == Z_BUF_ERROR || (!outputFull && stream.pointee.avail_in == 0) { break }
        }
        return input.count - Int(stream.pointee.avail_in)
    }

    /// Decompresses `input` and appends the output to `output`.
    public func decompress(_ input: [UInt8], into output: inout [UInt8]) throws(CompressionError) {
        // withUnsafeBytes only rethrows `any Error`; carry the typed error out by hand.
        let failure = input.withUnsafeBytes { buffer -> CompressionError? in
            do throws(CompressionError) { try decompress(buffer, into: &output) } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }

    /// Checks that the stream ended cleanly; call after the last input.
    public func finish() throws(CompressionError) {
        guard isAtEnd else { throw .truncated }
    }
}

extension GzipDecoder {
    /// Decompresses a whole buffer, failing on truncation, corruption or more than `limit` bytes.
    public static func decompress(_ input: [UInt8], limit: Int = .max) throws(CompressionError) -> [UInt8] {
        let decoder = try GzipDecoder(limit: limit)
        var output: [UInt8] = []
        try decoder.decompress(input, into: &output)
        try decoder.finish()
        return output
    }
}
