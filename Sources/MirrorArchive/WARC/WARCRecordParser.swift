/// Splits a stream of (decompressed) WARC bytes, pushed in chunks of any size, into records:
/// a header up to its blank line, then `Content-Length` bytes of block streamed to the handler,
/// then the CRLFs that separate records. Memory stays flat: only a header is ever held whole.
final class WARCRecordParser {
    private enum State {
        case between
        case header([UInt8])
        case block(remaining: Int)
    }

    /// A record's header may be at most this long.
    static let headerLimit = 1 << 20

    let path: String
    private unowned let handler: any WARCRecordHandler
    /// Where a record starting at a given position of the stream is in the file.
    var locate: (Int) -> Int = { $0 }
    private var state = State.between
    /// The position in the stream of the next byte fed.
    private var position = 0
    /// Where the record being read starts.
    private(set) var recordOffset = 0

    init(path: String, handler: any WARCRecordHandler) {
        self.path = path
        self.handler = handler
    }

    /// Whether a record has started and not ended.
    var isInsideRecord: Bool {
        if case .between = state { return false }
        return true
    }

    func feed(_ bytes: ArraySlice<UInt8>) throws {
        var rest = bytes
        while !rest.isEmpty {
            switch state {
            case .between:
                let separators = rest.prefix { $0 == 0x0D || $0 == 0x0A }
                position += separators.count
                rest = rest.dropFirst(separators.count)
                guard let first = rest.first else { return }
                recordOffset = locate(position)
                guard first == UInt8(ascii: "W") else {
                    throw ArchiveError.corrupt(path: path, offset: recordOffset, reason: "no WARC record starts there")
                }
                state = .header([])
            case .header(var buffer):
                let searchFrom = max(0, buffer.count - 3)
                buffer += rest
                guard let end = Self.blankLine(in: buffer, from: searchFrom) else {
                    position += rest.count
                    rest = []
                    guard buffer.count <= Self.headerLimit else {
                        throw ArchiveError.corrupt(path: path, offset: recordOffset, reason: "the record header is longer than 1 MiB")
                    }
                    state = .header(buffer)
                    continue
                }
                let used = end + 4 - (buffer.count - rest.count)
                position += used
                rest = rest.dropFirst(used)
                guard let header = WARCHeader.parse(buffer[..<end]) else {
                    throw ArchiveError.corrupt(path: path, offset: recordOffset, reason: "the record header does not start with WARC/")
                }
                guard let length = header["Content-Length"].flatMap({ Int($0) }), length >= 0 else {
                    throw ArchiveError.corrupt(path: path, offset: recordOffset, reason: "the record header has no valid Content-Length")
                }
                try handler.begin(header, offset: recordOffset)
                state = .block(remaining: length)
                if length == 0 { try endRecord() }
            case .block(let remaining):
                let taken = rest.prefix(remaining)
                position += taken.count
                rest = rest.dropFirst(taken.count)
                try handler.block(taken)
                state = .block(remaining: remaining - taken.count)
                if remaining == taken.count { try endRecord() }
            }
        }
    }

    /// The stream ended: throws when it ended inside a record.
    func finish() throws {
        if isInsideRecord { throw ArchiveError.truncated(path: path, offset: recordOffset) }
    }

    private func endRecord() throws {
        state = .between
        try handler.end()
    }

    private static func blankLine(in bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + 3 < bytes.count {
            if bytes[index] == 0x0D && bytes[index + 1] == 0x0A && bytes[index + 2] == 0x0D && bytes[index + 3] == 0x0A {
                return index
            }
            index += 1
        }
        return nil
    }
}
