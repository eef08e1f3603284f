import Crypto
import Foundation
import MirrorCompression

/// WARC records written by hand, the way other tools write them (or get them wrong), for import tests.
struct HandMadeWARC {
    private(set) var bytes: [UInt8] = []

    /// Appends a record; `digest: false` leaves out `WARC-Block-Digest`, `wrongDigest` writes a false one.
    mutating func add(
        _ type: String, uri: String?, date: String = "2024-05-01T12:00:00Z", contentType: String? = nil,
        fields: [(String, String)] = [], block: [UInt8], wrongDigest: Bool = false
    ) {
        var header = "WARC/1.0\r\nWARC-Type: \(type)\r\nWARC-Record-ID: <urn:uuid:\(UUID().uuidString.lowercased())>\r\n"
        header += "WARC-Date: \(date)\r\n"
        if let uri { header += "WARC-Target-URI: <\(uri)>\r\n" }
        if let contentType { header += "Content-Type: \(contentType)\r\n" }
        for (name, value) in fields { header += "\(name): \(value)\r\n" }
        let digest = TestDigest.sha1(wrongDigest ? block + [0] : block)
        header += "WARC-Block-Digest: \(digest)\r\nContent-Length: \(block.count)\r\n\r\n"
        bytes += Array(header.utf8) + block + Array("\r\n\r\n".utf8)
    }

    /// An HTTP message: a first line, fields, a blank line, a payload.
    static func http(_ firstLine: String, _ fields: [(String, String)], payload: [UInt8] = []) -> [UInt8] {
        Array((([firstLine] + fields.map { "\($0.0): \($0.1)" }).joined(separator: "\r\n") + "\r\n\r\n").utf8) + payload
    }

    /// `payload` in chunked transfer coding, in chunks of `size` bytes.
    static func chunked(_ payload: [UInt8], size: Int) -> [UInt8] {
        var output: [UInt8] = []
        for start in stride(from: 0, to: payload.count, by: size) {
            let chunk = payload[start..<min(start + size, payload.count)]
            output += Array("\(String(chunk.count, radix: 16))\r\n".utf8) + chunk + Array("\r\n".utf8)
        }
        return output + Array("0\r\n\r\n".utf8)
    }

    func write(to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}
