import Foundation

extension SiteManifest {
    /// The manifest as `.mirror/manifest.json` holds it — pretty-printed JSON, keys sorted —
    /// handed to `write` in pieces of about a megabyte, one resource encoded at a time.
    /// Encoding the whole manifest at once held a tree of every value and the whole text,
    /// hundreds of megabytes at 100,000 URLs; this holds one piece.
    func writeJSON(_ write: ([UInt8]) throws -> Void) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        /// `value` as JSON, its lines after the first indented by `indent` spaces.
        func json(_ value: some Encodable, indent: Int) throws -> [UInt8] {
            var bytes: [UInt8] = []
            for byte in try encoder.encode(value) {
                bytes.append(byte)
                if byte == UInt8(ascii: "\n") { bytes += repeatElement(UInt8(ascii: " "), count: indent) }
            }
            return bytes
        }
        var text = Array("{\n".utf8)
        if let index { text += Array("  \"index\" : ".utf8) + (try json(index, indent: 2)) + Array(",\n".utf8) }
        text += Array("  \"redirects\" : ".utf8) + (try json(redirects, indent: 2)) + Array(",\n  \"resources\" : {".utf8)
        let urls = resources.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        for (number, url) in urls.enumerated() {
            text += Array((number == 0 ? "\n    " : ",\n    ").utf8) + (try json(url, indent: 0)) + Array(" : ".utf8)
            text += try json(resources[url]!, indent: 4)
            if text.count >= 1 << 20 {
                try write(text)
                text.removeAll(keepingCapacity: true)
            }
        }
        text += Array((urls.isEmpty ? "},\n" : "\n  },\n").utf8)
        if let seeds { text += Array("  \"seeds\" : ".utf8) + (try json(seeds, indent: 2)) + Array(",\n".utf8) }
        text += Array("  \"version\" : \(version)\n}".utf8)
        try write(text)
    }
}
