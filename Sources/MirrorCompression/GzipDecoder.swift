internal import CZlibShim

/// A streaming decompressor for gzip (one or more members) and zlib data,
/// with a hard limit on the output size so a small "gzip bomb" cannot fill
/// memory or disk.
///
/// Given an `accessPointSpan`, it also records where reading can later start again
/// (`accessPoints`, for `GzipRangeReader`): every member's first block, and inside a member
/// the first block boundary after each `accessPointSpan` bytes of its output.
public final class GzipDecoder {
    private let stream: UnsafeMutablePointer<z_stream>
    /// The most bytes this decoder will ever produce.
    public let limit: Int
    /// Bytes produced so far.
    public private(set) var totalOut = 0
    /// True once the last member's trailer has been read and no input is pending.
    public private(set) var isAtEnd = false
    /// Where inflating can start, in order; recorded only with an `accessPointSpan`.
    public private(set) var accessPoints: [GzipAccessPoint] = []
    private let accessPointSpan: Int?
    /// Compressed bytes consumed so far.
    private var totalIn = 0
    private var memberHasPoint = false
    private var scratch = [UInt8](repeating: 0, count: 256 * 1024)

    /// - Parameters:
    ///   - limit: the most decompressed bytes to produce before failing.
    ///   - accessPointSpan: record access points this many output bytes apart (nil: none).
    public init(limit: Int = .max, accessPointSpan: Int? = nil) throws(CompressionError) {
        self.limit = limit
        self.accessPointSpan = accessPointSpan
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // windowBits 15 + 32 reads gzip or zlib, detected from the header.
        let code = inflateInit2_(stream, 15 + 32, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        // Freed by `deinit`, which a throw runs once every property is set.
        guard code == Z_OK else { throw .initializationFailed(code: code) }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
    }

    /// Decompresses `input` and appends the output to `output`.
    /// Several gzip members in a row are read as one stream (as `gzip -d` does). When the data is
    /// corrupt, what it inflated to before the damage is appended before the throw.
    public func decompress(_ input: UnsafeRawBufferPointer, into output: inout [UInt8]) throws(CompressionError) {
        _ = try inflate(input, into: &output, acrossMembers: true)
    }

    /// Decompresses `input` up to the end of the current gzip member and returns how many bytes
    /// of `input` it used; the rest starts the next member (call `startNextMember()`, then pass
    /// it). Readers of formats with one member per record (WARC) learn where each member starts.
    /// Corrupt data is refused as `decompress` refuses it.
    public func decompressMember(_ input: UnsafeRawBufferPointer, into output: inout [UInt8]) throws(CompressionError) -> Int {
        try inflate(input, into: &output, acrossMembers: false)
    }

    /// Prepares to read the member after the one that ended (`isAtEnd`).
    public func startNextMember() {
        inflateReset(stream)
        isAtEnd = false
        memberHasPoint = false
    }

    /// The inflate loop; returns how many input bytes were used.
    private func inflate(
        _ input: UnsafeRawBufferPointer, into output: inout [UInt8],
        acrossMembers: Bool
    ) throws(CompressionError) -> Int {
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
            let pendingIn = Int(stream.pointee.avail_in)
            let produced = scratch.withUnsafeMutableBufferPointer { buffer -> Int in
                stream.pointee.next_out = buffer.baseAddress
                stream.pointee.avail_out = uInt(buffer.count)
                // Z_BLOCK also stops after a header and at each block boundary, where a point can be.
                code = CZlibShim.inflate(stream, accessPointSpan == nil ? Z_NO_FLUSH : Z_BLOCK)
                return buffer.count - Int(stream.pointee.avail_out)
            }
            totalIn += pendingIn - Int(stream.pointee.avail_in)
            totalOut += produced
            // The limit before zlib's verdict: output inflated before a corruption still counts, so
            // which error a stream gives does not depend on how its input was split.
            guard totalOut <= limit else { throw .outputLimitExceeded(limit: limit) }
            // What came before a corruption is whole: a reader may keep it (the records of a WARC before its damage).
            output.append(contentsOf: scratch[0..<produced])
            switch code {
            case Z_OK, Z_BUF_ERROR: break
            case Z_STREAM_END: isAtEnd = true
            case Z_NEED_DICT: throw .corruptData(message: "a preset dictionary is required")
            default:
                throw .corruptData(message: stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(code)")
            }
            if code == Z_OK { try recordAccessPoint() }
            let outputFull = stream.pointee.avail_out == 0
            // Stopped at a block boundary, zlib may hold the next block's header in its bit buffer
            // with no input left: asked again, it reads it, or answers Z_BUF_ERROR (no progress).
            let atBoundary = code == Z_OK && accessPointSpan != nil && Int(stream.pointee.data_type) & 0x80 != 0
            if code == Z_BUF_ERROR || (!outputFull && stream.pointee.avail_in == 0 && !atBoundary) { break }
        }
        return input.count - Int(stream.pointee.avail_in)
    }

    /// Records an access point when inflate stopped where one can be and one is due.
    private func recordAccessPoint() throws(CompressionError) {
        guard let span = accessPointSpan else { return }
        // Bit 7 of data_type: stopped after a header or a block; bit 6: that was the last block.
        let dataType = Int(stream.pointee.data_type)
        guard dataType & 0xC0 == 0x80 else { return }
        guard memberHasPoint else {
            accessPoints.append(GzipAccessPoint(compressedOffset: totalIn, bitCount: 0, uncompressedOffset: totalOut, window: []))
            memberHasPoint = true
            return
        }
        guard let last = accessPoints.last, totalOut - last.uncompressedOffset >= span else { return }
        // The sliding window holds the member's last 32 KiB of output (fewer near its start).
        var window = [UInt8](repeating: 0, count: 32 << 10)
        var length: uInt = 0
        _ = window.withUnsafeMutableBufferPointer { inflateGetDictionary(stream, $0.baseAddress, &length) }
        window.removeLast(window.count - Int(length))
        accessPoints.append(
            GzipAccessPoint(
                compressedOffset: totalIn, bitCount: dataType & 7, uncompressedOffset: totalOut,
                window: try GzipEncoder.compress(window)))
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
