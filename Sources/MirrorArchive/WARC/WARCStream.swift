import MirrorCompression

/// Feeds a WARC file's bytes, pushed in chunks, to a record parser: as they are, or decompressed
/// when the file is gzip. A gzip WARC is read member by member, so each record is located by the
/// offset of the member it starts (its offset in a CDXJ index); in a WARC compressed as a single
/// stream, records are located by their offset in the decompressed stream.
final class WARCStream {
    private let parser: WARCRecordParser
    private var decoder: GzipDecoder?
    private var isGzip: Bool?
    /// Compressed bytes consumed, and where the current member starts (compressed, decompressed).
    private var consumed = 0
    private var memberStart = (compressed: 0, decompressed: 0)
    private var produced = 0
    private var output: [UInt8] = []
    /// The file's first byte, until the second comes.
    private var head: [UInt8] = []

    init(parser: WARCRecordParser) {
        self.parser = parser
    }

    func feed(_ chunk: [UInt8]) throws {
        var chunk = chunk
        if isGzip == nil {
            // The first two bytes tell, however the file's chunks are cut: they are held until both came.
            head += chunk
            guard head.count >= 2 else { return }
            (chunk, head) = (head, [])
            isGzip = chunk.starts(with: [0x1F, 0x8B])
            if isGzip == true {
                decoder = try GzipDecoder()
                parser.locate = { [unowned self] position in
                    position == memberStart.decompressed ? memberStart.compressed : position
                }
            }
        }
        guard let decoder else { return try parser.feed(chunk[...]) }
        try chunk.withUnsafeBytes { buffer in
            var rest = buffer[...]
            while !rest.isEmpty {
                if decoder.isAtEnd {
                    decoder.startNextMember()
                    memberStart = (consumed, produced)
                }
                output.removeAll(keepingCapacity: true)
                let used: Int
                do {
                    used = try decoder.decompressMember(UnsafeRawBufferPointer(rebasing: rest), into: &output)
                } catch {
                    // The records before the damage are read, however the file's chunks were cut.
                    try parser.feed(output[...])
                    throw ArchiveError.corrupt(path: parser.path, offset: damagedOffset, reason: "\(error)")
                }
                consumed += used
                produced += output.count
                rest = rest.dropFirst(used)
                try parser.feed(output[...])
                if used == 0 && output.isEmpty { break }
            }
        }
    }

    /// The file ended: throws when it ended inside a gzip member or a record.
    func finish() throws {
        if isGzip == nil, !head.isEmpty {
            isGzip = false
            try parser.feed(head[...])
        }
        if let decoder, !decoder.isAtEnd, consumed > memberStart.compressed {
            throw ArchiveError.truncated(path: parser.path, offset: damagedOffset)
        }
        try parser.finish()
    }

    /// The record being read when the stream broke, or else the member.
    private var damagedOffset: Int {
        parser.isInsideRecord ? parser.recordOffset : memberStart.compressed
    }
}
