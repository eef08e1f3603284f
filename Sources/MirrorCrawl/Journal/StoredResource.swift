import MirrorCore
import MirrorSite
import NIOHTTP1

/// A saved resource (`SiteManifest.Resource`) in the journal's binary form: a version byte,
/// then its fields in declaration order (`PackedBytes`), its record's header fields in the
/// packed form the record holds them in. Every saved URL is recorded once when saved and once
/// when rewritten, and read back by each pass of the crawl's finish; JSON took more time per
/// page than libxml2's parse of it, and header fields written out as strings had to be packed
/// again at every read. Rows of earlier versions are still read: JSON (starting with `{`), and
/// version 1, with the header fields as strings.
enum StoredResource {
    private static let version: UInt8 = 2
    /// The version that held header fields as a count of fields, each a count of strings.
    private static let versionWithFieldsAsStrings: UInt8 = 1

    static func encode(_ resource: SiteManifest.Resource) -> [UInt8] {
        var bytes = PackedBytes(capacity: 512)
        bytes.append(byte: version)
        bytes.append(resource.path)
        bytes.append(resource.status)
        bytes.append(resource.contentType)
        bytes.append(resource.size)
        bytes.append(resource.sha256)
        bytes.append(resource.etag)
        bytes.append(resource.lastModified)
        bytes.append(bytes: resource.record.packedFields)
        bytes.append(resource.record.requestTime)
        bytes.append(resource.record.responseTime)
        bytes.append(resource.record.varyKey)
        bytes.append(resource.rewrittenFor)
        bytes.append(resource.file?.sha256)
        if let file = resource.file { bytes.append(file.size) }
        return bytes.bytes
    }

    /// The resource of `encode`'s bytes (or version 1's); nil when they are not in that form, or
    /// its times are not finite (a NaN would reach the manifest, which JSON cannot hold).
    static func decode(_ encoded: [UInt8]) -> SiteManifest.Resource? {
        var bytes = PackedBytes(reading: encoded)
        guard let form = bytes.readByte(), form == version || form == versionWithFieldsAsStrings,
            let path = bytes.readString(), let status = bytes.readInt(),
            let contentType = bytes.readOptionalString(), let size = bytes.readInt(), let sha256 = bytes.readString(),
            let etag = bytes.readOptionalString(), let lastModified = bytes.readOptionalString(),
            let fields = form == version ? bytes.readBytes() : packedFields(readingStrings: &bytes),
            let requestTime = bytes.readDouble(), requestTime.isFinite, let responseTime = bytes.readDouble(), responseTime.isFinite,
            let varyKey = bytes.readString(),
            let record = ResponseRecord(packedFields: fields, requestTime: requestTime, responseTime: responseTime, varyKey: varyKey),
            let rewrittenFor = bytes.readOptionalString(), let fileDigest = bytes.readOptionalString()
        else { return nil }
        var file: SiteManifest.FileDigest?
        if let fileDigest {
            guard let fileSize = bytes.readInt() else { return nil }
            file = SiteManifest.FileDigest(sha256: fileDigest, size: fileSize)
        }
        guard bytes.isAtEnd else { return nil }
        return SiteManifest.Resource(
            path: path, status: status, contentType: contentType, size: size, sha256: sha256, etag: etag,
            lastModified: lastModified, record: record, rewrittenFor: rewrittenFor, file: file)
    }

    /// Whether `encoded` starts as a row of a later version than this one reads (a journal a
    /// newer mirror wrote): its version byte, the one thing this version can tell of it, may as
    /// well be damaged. (JSON rows start with `{`.)
    static func isOfLaterVersion(_ encoded: [UInt8]) -> Bool {
        encoded.first.map { $0 > version && $0 != UInt8(ascii: "{") } ?? false
    }

    /// Version 1's header fields, read as strings and packed.
    private static func packedFields(readingStrings bytes: inout PackedBytes) -> [UInt8]? {
        guard let fieldCount = bytes.readCount() else { return nil }
        var headers: [[String]] = []
        headers.reserveCapacity(fieldCount)
        for _ in 0..<fieldCount {
            guard let partCount = bytes.readCount() else { return nil }
            var field: [String] = []
            for _ in 0..<partCount {
                guard let part = bytes.readString() else { return nil }
                field.append(part)
            }
            headers.append(field)
        }
        var record = ResponseRecord(headers: HTTPHeaders(), requestTime: 0, responseTime: 0, varyKey: "")
        record.headers = headers
        return record.packedFields
    }
}
