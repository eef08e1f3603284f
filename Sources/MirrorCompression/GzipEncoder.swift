internal import CZlibShim

/// A streaming gzip compressor: feed it chunks, then `finish()` once.
///
/// The gzip header has no name and a zero timestamp, so the same input always
/// compresses to the same bytes (bundles must be reproducible).
public final class GzipEncoder {
    private let stream: UnsafeMutablePointer<z_stream>
    private var finished = false
    private var scratch = [UInt8](repeating: 0, count: 64 * 1024)

    /// - Parameter level: zlib level, 0 (store) to 9 (smallest); 6 is zlib's default.
    public init(level: Int32 = 6) throws(CompressionError) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // deflateInit2 is a macro; call the function behind it. windowBits 15 + 16 writes gzip.
        let code = deflateInit2_(
            stream, max(0, min(9, level)), Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY,
            ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        // Freed by `deinit`, which a throw runs once every property is set.
        guard code == Z_OK else { throw .initializationFailed(code: code) }
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
    }

    /// Compresses `input` and appends whatever output zlib produces to `output`.
    public func compress(_ input: UnsafeRawBufferPointer, into output: inout [UInt8]) {
        precondition(!finished, "GzipEncoder used after finish()")
        run(input, flush: Z_NO_FLUSH, into: &output)
    }

    /// Compresses `input` and appends whatever output zlib produces to `output`.
    public func compress(_ input: [UInt8], into output: inout [UInt8]) {
        input.withUnsafeBytes { compress($0, into: &output) }
    }

    /// Flushes the rest and writes the gzip trailer.
    public func finish(into output: inout [UInt8]) {
        precondition(!finished, "GzipEncoder finished twice")
        run(UnsafeRawBufferPointer(start: nil, count: 0), flush: Z_FINISH, into: &output)
        finished = true
    }

    private func run(_ input: UnsafeRawBufferPointer, flush: Int32, into output: inout [UInt8]) {
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
        stream.pointee.avail_in = uInt(input.count)
        while true {
            var code: Int32 = Z_OK
            let produced = scratch.withUnsafeMutableBufferPointer { buffer -> Int in
                stream.pointee.next_out = buffer.baseAddress
                stream.pointee.avail_out = uInt(buffer.count)
                code = deflate(stream, flush)
                return buffer.count - Int(stream.pointee.avail_out)
            }
            precondition(code != Z_STREAM_ERROR, "deflate stream state is broken")
            output.append(contentsOf: scratch[0..<produced])
            let done = flush == Z_FINISH ? code == Z_STREAM_END : stream.pointee.avail_out != 0
            if done { break }
        }
        stream.pointee.next_in = nil
    }
}

extension GzipEncoder {
    /// Compresses a whole buffer into one gzip member.
    public static func compress(_ input: [UInt8], level: Int32 = 6) throws(CompressionError) -> [UInt8] {
        let result = input.withUnsafeBytes { buffer -> Result<[UInt8], CompressionError> in
            do throws(CompressionError) { return .success(try compress(buffer, level: level)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Compresses a whole buffer into one gzip member.
    public static func compress(_ input: UnsafeRawBufferPointer, level: Int32 = 6) throws(CompressionError) -> [UInt8] {
        let encoder = try GzipEncoder(level: level)
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 3 + 64)
        encoder.compress(input, into: &output)
        encoder.finish(into: &output)
        return output
    }
}
