/// Removes HTTP/1.1 chunked transfer coding from a payload fed in pieces (WARC writers such as
/// wget keep responses as they came off the wire). A payload that does not start with a chunk
/// size line is passed through unchanged: some writers de-chunk the body but keep the header.
final class ChunkedDecoder {
    private enum State {
        /// Reading a chunk-size line (with extensions) up to its LF.
        case size([UInt8])
        case data(remaining: Int)
        /// The CRLF after a chunk's data.
        case dataEnd([UInt8])
        /// Trailer fields after the last chunk, up to an empty line.
        case trailer([UInt8])
        case done
        case passThrough
    }

    private var state = State.size([])
    private var sawChunk = false

    struct Malformed: Error {}

    /// Decodes `bytes`, appending what belongs to the body to `output`.
    func decode(_ bytes: ArraySlice<UInt8>, into output: inout [UInt8]) throws {
        var rest = bytes
        while !rest.isEmpty {
            switch state {
            case .passThrough:
                output += rest
                return
            case .done:
                return
            case .size(var line):
                guard let newline = rest.firstIndex(of: 0x0A) else {
                    line += rest
                    guard line.count <= 1024 else { return try notChunked(line, into: &output) }
                    state = .size(line)
                    return
                }
                line += rest[..<newline]
                rest = rest[(newline + 1)...]
                let digits = line.prefix { $0 != UInt8(ascii: ";") && $0 != 0x0D && $0 != 0x20 && $0 != 0x09 }
                // Hex digits alone: `Int(_:radix:)` also takes a sign, and a negative size is no size.
                guard !digits.isEmpty, digits.count <= 15, digits.allSatisfy({ Character(Unicode.Scalar($0)).isHexDigit }),
                    let size = Int(String(decoding: digits, as: UTF8.self), radix: 16)
                else {
                    return try notChunked(line + [0x0A] + rest, into: &output)
                }
                sawChunk = true
                state = size == 0 ? .trailer([]) : .data(remaining: size)
            case .data(let remaining):
                let taken = rest.prefix(remaining)
                output += taken
                rest = rest.dropFirst(taken.count)
                state = remaining == taken.count ? .dataEnd([]) : .data(remaining: remaining - taken.count)
            case .dataEnd(var seen):
                while let byte = rest.first, seen.last != 0x0A {
                    seen.append(byte)
                    rest = rest.dropFirst()
                }
                guard seen.last == 0x0A else {
                    state = .dataEnd(seen)
                    return
                }
                guard seen == [0x0D, 0x0A] || seen == [0x0A] else { throw Malformed() }
                state = .size([])
            case .trailer(var line):
                guard let newline = rest.firstIndex(of: 0x0A) else {
                    line += rest
                    state = .trailer(line)
                    return
                }
                line += rest[..<newline]
                rest = rest[(newline + 1)...]
                state = line.isEmpty || line == [0x0D] ? .done : .trailer([])
            }
        }
    }

    /// Checks that the payload ended after its last chunk (or hands over the rest of a payload
    /// that turned out not to be chunked).
    func finish(into output: inout [UInt8]) throws {
        switch state {
        case .done, .passThrough: return
        case .size(let line) where !sawChunk: output += line
        default: throw Malformed()
        }
    }

    /// The payload is not chunked after all: what was held back is body, and so is the rest.
    private func notChunked(_ held: some Collection<UInt8>, into output: inout [UInt8]) throws {
        guard !sawChunk else { throw Malformed() }
        state = .passThrough
        output += held
    }
}
