internal import CZlibShim

/// Inflates a range of a gzip file's decompressed bytes without inflating everything before
/// it: it starts at the last access point at or before the range (see `GzipDecoder`'s
/// `accessPoints`), inflates and drops the bytes up to the range, then hands out the range in
/// chunks. It reads the file through `source` only, so readers of one file are independent.
///
/// It checks no gzip trailer (it reads deflate data only): the file was checked whole when
/// its access points were recorded.
public final class GzipRangeReader {
    /// Reads bytes of the gzip file at an offset into a buffer; returns how many (0 at the end).
    public typealias Source = (_ offset: Int, _ buffer: UnsafeMutableRawBufferPointer) throws -> Int

    private let stream: UnsafeMutablePointer<z_stream>
    private let points: [GzipAccessPoint]
    private let source: Source
    /// Decompressed offset of the next byte inflate produces.
    private var cursor = 0
    /// Decompressed offset of the next byte to hand out; bytes before it are dropped.
    private var position: Int
    private let end: Int
    /// File offset of the next compressed byte to read.
    private var compressedOffset = 0
    /// The access point inflating started from, and whether its member has ended.
    private var pointIndex = 0
    private var memberEnded = false
    private let input = UnsafeMutableRawBufferPointer.allocate(byteCount: 32 << 10, alignment: 16)
    /// Where dropped bytes and decompressed windows go.
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 32 << 10, alignment: 16)

    /// - Parameters:
    ///   - points: access points in order of their decompressed offsets, the first at 0.
    ///   - range: the decompressed bytes wanted; they must exist.
    public init(points: [GzipAccessPoint], range: Range<Int>, source: @escaping Source) throws {
        precondition(points.first?.uncompressedOffset == 0, "GzipRangeReader: no access point at the start")
        self.points = points
        self.source = source
        position = range.lowerBound
        end = range.upperBound
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let code = inflateInit2_(stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        // Freed by `deinit`, which a throw runs once every property is set.
        guard code == Z_OK else { throw CompressionError.initializationFailed(code: code) }
        if position < end { try start(at: position) }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
        input.deallocate()
        scratch.deallocate()
    }

    /// The next at most `maxCount` bytes of the range; nil once it has all been handed out.
    public func next(maxCount: Int) throws -> [UInt8]? {
        guard position < end else { return nil }
        let count = min(maxCount, end - position)
        return try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            try read(into: UnsafeMutableRawBufferPointer(buffer))
            initialized = count
        }
    }

    /// Fills `buffer` with the next bytes of the range (there must be as many left).
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws {
        precondition(buffer.count <= end - position, "GzipRangeReader: fewer bytes left than asked for")
        var filled = 0
        while filled < buffer.count {
            let dropping = cursor < position
            let room = dropping ? min(position - cursor, scratch.count) : buffer.count - filled
            let produced = try inflate(into: dropping ? scratch.baseAddress! : buffer.baseAddress! + filled, count: room)
            if !dropping {
                filled += produced
                position += produced
            }
        }
    }

    /// Inflates at most `count` bytes to `output`, reading input as needed and moving on to the
    /// next member when one has ended; returns how many were produced.
    private func inflate(into output: UnsafeMutableRawPointer, count: Int) throws -> Int {
        if memberEnded { try start(at: cursor, continuing: true) }
        if stream.pointee.avail_in == 0 {
            let read = try source(compressedOffset, input)
            guard read > 0 else { throw CompressionError.truncated }
            compressedOffset += read
            stream.pointee.next_in = input.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_in = uInt(read)
        }
        stream.pointee.next_out = output.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = uInt(count)
        let code = CZlibShim.inflate(stream, Z_NO_FLUSH)
        let produced = count - Int(stream.pointee.avail_out)
        cursor += produced
        switch code {
        case Z_OK, Z_BUF_ERROR:
            break
        case Z_STREAM_END:
            memberEnded = true
        default:
            throw CompressionError.corruptData(message: stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(code)")
        }
        return produced
    }

    /// Prepares to inflate from the last access point at or before `offset`.
    /// - Parameter continuing: a member just ended at `offset`, so a later one must start there.
    private func start(at offset: Int, continuing: Bool = false) throws {
        var low = 0
        var high = points.count
        while high - low > 1 {
            let middle = (low + high) / 2
            if points[middle].uncompressedOffset <= offset { low = middle } else { high = middle }
        }
        let point = points[low]
        if continuing {
            guard low > pointIndex, point.startsMember, point.uncompressedOffset == offset else {
                throw CompressionError.corruptData(message: "a member ends at byte \(offset), where no other starts")
            }
        }
        pointIndex = low
        memberEnded = false
        cursor = point.uncompressedOffset
        compressedOffset = point.compressedOffset
        let window = try inflatedWindow(point.window)
        inflateReset2(stream, -15)
        stream.pointee.avail_in = 0
        if point.bitCount > 0 {
            var byte: UInt8 = 0
            guard try withUnsafeMutableBytes(of: &byte, { try source(point.compressedOffset - 1, $0) }) == 1 else {
                throw CompressionError.truncated
            }
            inflatePrime(stream, Int32(point.bitCount), Int32(byte >> (8 - point.bitCount)))
        }
        if window > 0 { inflateSetDictionary(stream, scratch.baseAddress!.assumingMemoryBound(to: Bytef.self), uInt(window)) }
    }

    /// Decompresses an access point's window into `scratch`; returns its length.
    private func inflatedWindow(_ window: [UInt8]) throws -> Int {
        guard !window.isEmpty else { return 0 }
        inflateReset2(stream, 31)
        return try window.withUnsafeBytes { compressed in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: compressed.bindMemory(to: Bytef.self).baseAddress)
            stream.pointee.avail_in = uInt(compressed.count)
            stream.pointee.next_out = scratch.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = uInt(scratch.count)
            let code = CZlibShim.inflate(stream, Z_FINISH)
            guard code == Z_STREAM_END else { throw CompressionError.corruptData(message: "an access point's window is damaged") }
            return scratch.count - Int(stream.pointee.avail_out)
        }
    }
}
