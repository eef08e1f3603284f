import MirrorCompression

/// Writes WARC records to a file, each record one gzip member (WARC 1.1 annex D.2), so a reader
/// can seek to any record by its offset. Memory stays flat: a record's block streams through
/// the compressor.
final class WARCWriter {
    let file: HashedFile
    private let level: Int32
    private var encoder: GzipEncoder?
    private var recordStart = 0

    /// Creates (or truncates) the file at `path`.
    init(path: String, level: Int32) throws {
        file = try HashedFile(path: path)
        self.level = level
    }

    /// Starts a record with its header; `contentLength` is the length of the block to follow.
    func begin(_ header: WARCHeader, contentLength: Int) throws {
        precondition(encoder == nil, "a WARC record was begun inside another")
        encoder = try GzipEncoder(level: level)
        recordStart = file.size
        try append(header.serialized(contentLength: contentLength))
    }

    /// Adds bytes of the record's block.
    func append(_ bytes: [UInt8]) throws {
        let encoder = encoder!
        try file.withBuffer { encoder.compress(bytes, into: &$0) }
    }

    /// Ends the record (with the two CRLFs after its block); returns where its gzip member starts
    /// in the file and how long it is, as a CDXJ index gives them.
    @discardableResult
    func end() throws -> (offset: Int, length: Int) {
        try append(Array("\r\n\r\n".utf8))
        let encoder = encoder!
        try file.withBuffer { encoder.finish(into: &$0) }
        self.encoder = nil
        return (recordStart, file.size - recordStart)
    }
}
