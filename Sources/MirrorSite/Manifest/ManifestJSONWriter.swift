import Dispatch
import MirrorCore
import MirrorLock

/// Writes the manifest's JSON by hand, byte for byte what `JSONEncoder` writes with
/// `.prettyPrinted, .sortedKeys, .withoutEscapingSlashes` (a test holds it to that): the
/// encoder, called once per resource, took 0.6 s of a single core per 10,000 URLs at the end of
/// every crawl. Keys are written in sorted order by the methods below; objects and arrays are
/// indented by two spaces per level, as the encoder does.
struct ManifestJSONWriter {
    private(set) var bytes: [UInt8] = []

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes += $0 }
    }

    /// A quoted string: `"` and `\` escaped, control characters as `\n`, `\r`, `\t`, `\b`, `\f`
    /// or `\u00xx`, everything else (`/` and non-ASCII included) as it is.
    mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var start = 0
            for (offset, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                bytes += UnsafeBufferPointer(rebasing: utf8[start..<offset])
                start = offset + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                default:
                    let digits: StaticString = "0123456789abcdef"
                    raw("u00")
                    bytes.append(digits.utf8Start[Int(byte >> 4)])
                    bytes.append(digits.utf8Start[Int(byte & 0xF)])
                }
            }
            bytes += UnsafeBufferPointer(rebasing: utf8[start...])
        }
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func number(_ value: Int) { bytes += String(value).utf8 }

    /// As the encoder writes a finite `Double`: its shortest exact form, without a trailing `.0`.
    mutating func number(_ value: Double) {
        let text = value.description
        bytes += text.hasSuffix(".0") ? text.utf8.dropLast(2) : text.utf8[...]
    }

    // MARK: The manifest's values

    mutating func resource(_ resource: SiteManifest.Resource, indent: Int) {
        var object = ObjectWriter(indent: indent)
        if let contentType = resource.contentType {
            object.key("contentType", &self)
            string(contentType)
        }
        if let etag = resource.etag {
            object.key("etag", &self)
            string(etag)
        }
        if let file = resource.file {
            object.key("file", &self)
            fileDigest(file, indent: indent + 2)
        }
        if let lastModified = resource.lastModified {
            object.key("lastModified", &self)
            string(lastModified)
        }
        object.key("path", &self)
        string(resource.path)
        object.key("record", &self)
        record(resource.record, indent: indent + 2)
        if let rewrittenFor = resource.rewrittenFor {
            object.key("rewrittenFor", &self)
            string(rewrittenFor)
        }
        object.key("sha256", &self)
        string(resource.sha256)
        object.key("size", &self)
        number(resource.size)
        object.key("status", &self)
        number(resource.status)
        object.end(&self)
    }

    mutating func redirect(_ redirect: SiteManifest.Redirect, indent: Int) {
        var object = ObjectWriter(indent: indent)
        object.key("location", &self)
        string(redirect.location)
        object.key("record", &self)
        record(redirect.record, indent: indent + 2)
        object.key("status", &self)
        number(redirect.status)
        object.end(&self)
    }

    mutating func fileDigest(_ digest: SiteManifest.FileDigest, indent: Int) {
        var object = ObjectWriter(indent: indent)
        object.key("sha256", &self)
        string(digest.sha256)
        object.key("size", &self)
        number(digest.size)
        object.end(&self)
    }

    mutating func record(_ record: ResponseRecord, indent: Int) {
        var object = ObjectWriter(indent: indent)
        object.key("headers", &self)
        array(record.headers, indent: indent + 2) { writer, field, indent in
            writer.array(field, indent: indent) { writer, part, _ in writer.string(part) }
        }
        object.key("requestTime", &self)
        number(record.requestTime)
        object.key("responseTime", &self)
        number(record.responseTime)
        object.key("varyKey", &self)
        string(record.varyKey)
        object.end(&self)
    }

    /// `[`, each element on its own line one level in, `]` at `indent`; an empty array as the
    /// encoder writes it, with an empty line inside.
    mutating func array<Element>(_ elements: [Element], indent: Int, _ element: (inout Self, Element, Int) -> Void) {
        bytes.append(UInt8(ascii: "["))
        if elements.isEmpty { bytes.append(UInt8(ascii: "\n")) }
        for (number, value) in elements.enumerated() {
            if number > 0 { bytes.append(UInt8(ascii: ",")) }
            newline(indent: indent + 2)
            element(&self, value, indent + 2)
        }
        newline(indent: indent)
        bytes.append(UInt8(ascii: "]"))
    }

    /// An object of `values` by key, the keys in the order of their UTF-8 bytes (as the encoder
    /// sorts them), as `object(slices:)` writes it.
    mutating func dictionary<Value: Sendable>(
        _ values: [String: Value], indent: Int, flushing write: ([UInt8]) throws -> Void,
        _ value: @Sendable (inout Self, Value, Int) -> Void
    ) throws {
        try object(indent: indent, flushing: write, slices: Self.slices(of: values), value)
    }

    /// The members of `values` in the order of their keys' UTF-8 bytes, a slice per call, for
    /// `object(slices:)`.
    static func slices<Value>(of values: [String: Value]) -> () -> [(String, Value)] {
        let keys = values.keys.sorted { $0.bytesPrecede($1) }
        var start = 0
        return {
            defer { start = min(start + sliceSize, keys.count) }
            return keys[start..<min(start + sliceSize, keys.count)].map { ($0, values[$0]!) }
        }
    }

    /// Members a slice from `object(slices:)` should hold: one wave of blocks.
    static let sliceSize = blockSize * blocksPerWave
    private static let blockSize = 256
    private static let blocksPerWave = 8

    /// An object whose members `nextSlice` hands over in slices, keys in the order of their UTF-8
    /// bytes (as the encoder sorts them), until it returns an empty one; the bytes so far are
    /// handed to `write` whenever they pass a megabyte. Each slice's members are formatted in
    /// blocks on every core and written in order: at 100,000 URLs the resources are 130 MB of
    /// JSON, which took 3 s of one core at the end of a crawl. Only one slice, and its bytes,
    /// are held at a time.
    mutating func object<Value: Sendable>(
        indent: Int, flushing write: ([UInt8]) throws -> Void, slices nextSlice: () throws -> [(String, Value)],
        _ value: @Sendable (inout Self, Value, Int) -> Void
    ) throws {
        var written = 0
        while true {
            let slice = try nextSlice()
            if slice.isEmpty { break }
            let blocks = stride(from: 0, to: slice.count, by: Self.blockSize).map { $0..<min($0 + Self.blockSize, slice.count) }
            let formatted = Locked([[UInt8]](repeating: [], count: blocks.count))
            let before = written
            DispatchQueue.concurrentPerform(iterations: blocks.count) { index in
                var block = ManifestJSONWriter()
                var members = ObjectWriter(indent: indent, membersBefore: before + blocks[index].lowerBound)
                for (key, member) in slice[blocks[index]] {
                    members.key(key, &block)
                    value(&block, member, indent + 2)
                }
                formatted.withLock { $0[index] = block.bytes }
            }
            written += slice.count
            for block in formatted.withLock({ $0 }) {
                bytes += block
                if bytes.count >= 1 << 20 {
                    try write(bytes)
                    bytes.removeAll(keepingCapacity: true)
                }
            }
        }
        ObjectWriter(indent: indent, membersBefore: written).end(&self)
    }

    mutating func newline(indent: Int) {
        bytes.append(UInt8(ascii: "\n"))
        bytes += repeatElement(UInt8(ascii: " "), count: indent)
    }

    /// The members of one object: `{`, then each key on its own line one level in, `}` at `indent`.
    struct ObjectWriter {
        let indent: Int
        private var count: Int

        /// An object's writer, from its first member on, or from after `membersBefore` members
        /// another writer wrote.
        init(indent: Int, membersBefore: Int = 0) {
            self.indent = indent
            count = membersBefore
        }

        mutating func key(_ name: StaticString, _ writer: inout ManifestJSONWriter) {
            member(&writer)
            writer.raw("\"")
            writer.raw(name)
            writer.raw("\" : ")
        }

        mutating func key(_ name: String, _ writer: inout ManifestJSONWriter) {
            member(&writer)
            writer.string(name)
            writer.raw(" : ")
        }

        private mutating func member(_ writer: inout ManifestJSONWriter) {
            writer.raw(count == 0 ? "{" : ",")
            count += 1
            writer.newline(indent: indent + 2)
        }

        func end(_ writer: inout ManifestJSONWriter) {
            if count == 0 { writer.raw("{\n") }
            writer.newline(indent: indent)
            writer.raw("}")
        }
    }
}
