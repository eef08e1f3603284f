import MirrorCore
import MirrorSite
import NIOHTTP1

/// A saved resource (`SiteManifest.Resource`) in the journal's binary form: a version byte,
/// then its fields in declaration order (`PackedBytes`): its record's header fields in the
/// packed form the record holds them in, its digests as their 32 bytes, and for each validator
/// whether it is the record's field or a value of its own. Every saved URL is recorded once when
/// saved and once when rewritten, and read back by each pass of the crawl's finish, so a row is
/// read as the resource holds its values: JSON took more time per page than libxml2's parse of
/// it, header fields written out as strings had to be packed again, and validators written as
/// strings had to be compared with the record's fields at every read. Rows of earlier versions
/// are still read: JSON (starting with `{`), version 1 (header fields as strings) and version 2
/// (digests as text, validators as strings).
enum StoredResource {
    private static let version: UInt8 = 3
    /// The version that held digests as text and validators as strings.
    private static let versionWithValidatorsAsStrings: UInt8 = 2
    /// The version that held header fields as a count of fields, each a count of strings.
    private static let versionWithFieldsAsStrings: UInt8 = 1

    static func encode(_ resource: SiteManifest.Resource) -> [UInt8] {
        var bytes = PackedBytes(capacity: 512)
        bytes.append(byte: version)
        bytes.append(resource.path)
        bytes.append(resource.status)
        bytes.append(resource.contentType)
        bytes.append(resource.size)
        append(resource.digest, to: &bytes)
        append(resource.validators.etag, to: &bytes)
        append(resource.validators.lastModified, to: &bytes)
        bytes.append(bytes: resource.record.packedFields)
        bytes.append(resource.record.requestTime)
        bytes.append(resource.record.responseTime)
        bytes.append(resource.record.varyKey)
        bytes.append(resource.rewrittenFor)
        bytes.append(byte: resource.file == nil ? 0 : 1)
        if let file = resource.file {
            append(file.digest, to: &bytes)
            bytes.append(file.size)
        }
        return bytes.bytes
    }

    /// The resource of `encode`'s bytes (or an earlier version's); nil when they are not in that
    /// form, or its times are not finite (a NaN would reach the manifest, which JSON cannot hold).
    static func decode(_ encoded: [UInt8]) -> SiteManifest.Resource? {
        var bytes = PackedBytes(reading: encoded)
        switch bytes.readByte() {
        case version: return decodeCurrent(&bytes)
        case let form? where form == versionWithValidatorsAsStrings || form == versionWithFieldsAsStrings:
            return decodeEarlier(&bytes, version: form)
        default: return nil
        }
    }

    private static func decodeCurrent(_ bytes: inout PackedBytes) -> SiteManifest.Resource? {
        guard let path = bytes.readString(), let status = bytes.readInt(), let contentType = bytes.readOptionalString(),
            let size = bytes.readInt(), let digest = readDigest(&bytes),
            let etag = readValidator(&bytes), let lastModified = readValidator(&bytes),
            let fields = bytes.readBytes(), let record = readRecord(&bytes, fields: fields),
            let rewrittenFor = bytes.readOptionalString(), let hasFile = bytes.readByte(), hasFile <= 1
        else { return nil }
        var file: SiteManifest.FileDigest?
        if hasFile == 1 {
            guard let fileDigest = readDigest(&bytes), let fileSize = bytes.readInt() else { return nil }
            file = SiteManifest.FileDigest(digest: fileDigest, size: fileSize)
        }
        guard bytes.isAtEnd else { return nil }
        return SiteManifest.Resource(
            path: path, status: status, contentType: contentType, size: size, digest: digest, etag: etag,
            lastModified: lastModified, record: record, rewrittenFor: rewrittenFor, file: file)
    }

    /// Versions 1 and 2: digests as text, validators as strings (and in version 1, header fields
    /// as strings).
    private static func decodeEarlier(_ bytes: inout PackedBytes, version form: UInt8) -> SiteManifest.Resource? {
        guard let path = bytes.readString(), let status = bytes.readInt(),
            let contentType = bytes.readOptionalString(), let size = bytes.readInt(), let sha256 = bytes.readString(),
            let etag = bytes.readOptionalString(), let lastModified = bytes.readOptionalString(),
            let fields = form == versionWithValidatorsAsStrings ? bytes.readBytes() : packedFields(readingStrings: &bytes),
            let record = readRecord(&bytes, fields: fields),
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

    /// The record of the header fields `fields` (read just before) and of the times and vary
    /// key that follow them.
    private static func readRecord(_ bytes: inout PackedBytes, fields: [UInt8]) -> ResponseRecord? {
        guard let requestTime = bytes.readDouble(), requestTime.isFinite,
            let responseTime = bytes.readDouble(), responseTime.isFinite, let varyKey = bytes.readString()
        else { return nil }
        return ResponseRecord(packedFields: fields, requestTime: requestTime, responseTime: responseTime, varyKey: varyKey)
    }

    /// A digest: 0 and its 32 bytes, or 1 and other text (a manifest's malformed digest).
    private static func append(_ digest: HexDigest, to bytes: inout PackedBytes) {
        if let raw = digest.bytes {
            bytes.append(byte: 0)
            bytes.append(raw: raw)
        } else {
            bytes.append(byte: 1)
            bytes.append(digest.text)
        }
    }

    private static func readDigest(_ bytes: inout PackedBytes) -> HexDigest? {
        switch bytes.readByte() {
        case 0: bytes.readRaw(count: 32).map { HexDigest(bytes: $0) }
        case 1: bytes.readString().map(HexDigest.init)
        default: nil
        }
    }

    /// A validator: 0 for the record's field, 1 for no value of its own, 2 and its own value.
    private static func append(_ validator: SiteManifest.Resource.Validator, to bytes: inout PackedBytes) {
        switch validator {
        case .inRecord: bytes.append(byte: 0)
        case .own(nil): bytes.append(byte: 1)
        case .own(let value?):
            bytes.append(byte: 2)
            bytes.append(value)
        }
    }

    private static func readValidator(_ bytes: inout PackedBytes) -> SiteManifest.Resource.Validator? {
        switch bytes.readByte() {
        case 0: .inRecord
        case 1: .own(nil)
        case 2: bytes.readString().map { .own($0) }
        default: nil
        }
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
