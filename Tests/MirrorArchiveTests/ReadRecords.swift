import Crypto
import Foundation

@testable import MirrorArchive

/// A WARC read back whole with the module's own reader (in small pieces, so records and gzip
/// members straddle them), for tests to check record by record.
final class ReadRecords: WARCRecordHandler {
    struct Record {
        var header: WARCHeader
        var offset: Int
        var block: [UInt8] = []

        /// The HTTP head's text and the payload after it, split at the first blank line.
        var http: (head: String, payload: [UInt8]) {
            let end = (0..<max(0, block.count - 3)).first { Array(block[$0..<($0 + 4)]) == Array("\r\n\r\n".utf8) } ?? block.count
            return (String(decoding: block[..<end], as: UTF8.self), Array(block[min(block.count, end + 4)...]))
        }

        /// An HTTP header field's value (the first one, by case-insensitive name).
        func httpField(_ name: String) -> String? {
            http.head.components(separatedBy: "\r\n").dropFirst().first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
                .map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
        }
    }

    private(set) var records: [Record] = []

    func begin(_ header: WARCHeader, offset: Int) throws { records.append(Record(header: header, offset: offset)) }
    func block(_ bytes: ArraySlice<UInt8>) throws { records[records.count - 1].block += bytes }
    func end() throws {}

    static func read(_ path: String, pieceSize: Int = 7001) throws -> [Record] {
        let collector = ReadRecords()
        let stream = WARCStream(parser: WARCRecordParser(path: path, handler: collector))
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        for start in stride(from: 0, to: bytes.count, by: pieceSize) {
            try stream.feed(Array(bytes[start..<min(start + pieceSize, bytes.count)]))
        }
        try stream.finish()
        return collector.records
    }
}

/// Digests computed here, apart from the module's code: `sha1:` and RFC 4648 base32.
enum TestDigest {
    static func sha1(_ bytes: [UInt8]) -> String {
        "sha1:" + base32(Array(Insecure.SHA1.hash(data: bytes)))
    }

    static func sha256(_ bytes: some DataProtocol) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    static func base32(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var bits = bytes.map { String($0, radix: 2) }.map { String(repeating: "0", count: 8 - $0.count) + $0 }.joined()
        while bits.count % 5 != 0 { bits += "0" }
        var text = ""
        var index = bits.startIndex
        while index < bits.endIndex {
            let next = bits.index(index, offsetBy: 5)
            text.append(alphabet[Int(bits[index..<next], radix: 2)!])
            index = next
        }
        while text.count % 8 != 0 { text += "=" }
        return text
    }
}
