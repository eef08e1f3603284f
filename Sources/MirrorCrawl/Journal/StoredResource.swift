import MirrorCore
import MirrorSite
import NIOHTTP1

/// A saved resource (`SiteManifest.Resource`) in the journal's binary form: a version byte,
/// then its fields in declaration order (`PackedBytes`). Every saved URL is recorded once when
/// saved and once when rewritten; JSON took more time per page than libxml2's parse of it.
/// Rows written as JSON by earlier versions start with `{` and are still read.
enum StoredResource {
    private static let version: UInt8 = 1

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
        let headers = resource.record.headers  // unpacked once (each read unpacks them)
        bytes.append(headers.count)
        for field in headers {
            bytes.append(field.count)
            for part in field { bytes.append(part) }
        }
        bytes.append(resource.record.requestTime)
        bytes.append(resource.record.responseTime)
        bytes.append(resource.record.varyKey)
        bytes.append(resource.rewrittenFor)
        bytes.append(resource.file?.sha256)
        if let file = resource.file { bytes.append(file.size) }
        return bytes.bytes
    }

    /// The resource of `encode`'s bytes; nil when they are not in that form.
    static func decode(_ encoded: [UInt8]) -> SiteManifest.Resource? {
        var bytes = PackedBytes(reading: encoded)
        guard bytes.readByte() == version, let path = bytes.readString(), let status = bytes.readInt(),
            let contentType = bytes.readOptionalString(), let size = bytes.readInt(), let sha256 = bytes.readString(),
            let etag = bytes.readOptionalString(), let lastModified = bytes.readOptionalString(),
            let fieldCount = bytes.readCount()
        else { return nil }
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
        guard let requestTime = bytes.readDouble(), let responseTime = bytes.readDouble(), let varyKey = bytes.readString(),
            let rewrittenFor = bytes.readOptionalString(), let fileDigest = bytes.readOptionalString()
        else { return nil }
        var record = ResponseRecord(headers: HTTPHeaders(), requestTime: requestTime, responseTime: responseTime, varyKey: varyKey)
        record.headers = headers
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
}
