package import MirrorCore

/// The map of an offline folder, saved as `.mirror/manifest.json`: every saved URL with its
/// file, status, type, validators, size and digest, every redirect, and for each the record a
/// cache needs to reload the original response (so a bundle of the folder can refill a cache).
///
/// Version 2. A file whose links were rewritten differs from the response's body: `file` gives
/// the digest of the bytes on disk, and the original body is kept as `.mirror/originals/<sha256>`.
public struct SiteManifest: Sendable, Codable, Equatable {
    /// The size and SHA-256 (lower-case hex) of a file.
    public struct FileDigest: Sendable, Codable, Equatable {
        /// Held as `HexDigest`: a manifest holds one per rewritten file.
        package private(set) var digest: HexDigest
        public var size: Int

        public var sha256: String {
            get { digest.text }
            set { digest = HexDigest(newValue) }
        }

        public init(sha256: String, size: Int) {
            self.init(digest: HexDigest(sha256), size: size)
        }

        package init(digest: HexDigest, size: Int) {
            self.digest = digest
            self.size = size
        }

        private enum CodingKeys: String, CodingKey { case sha256, size }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(sha256: try container.decode(String.self, forKey: .sha256), size: try container.decode(Int.self, forKey: .size))
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(sha256, forKey: .sha256)
            try container.encode(size, forKey: .size)
        }
    }

    /// One saved URL. Its values are held in one shared, immutable object (copied when one
    /// changes, which only a re-crawl and the rewriting do): the manifest's table then holds a
    /// reference per URL instead of the ≈ 200 bytes of the values themselves in every bucket —
    /// at 100,000 URLs, 262,144 buckets, and as many again while the table grows. The digest is
    /// held as `HexDigest`, and the validators only when the record's header fields do not
    /// have them (a crawl's always do): a manifest in memory (`serve`, `pack`) holds one per URL.
    public struct Resource: Sendable, Codable, Equatable {
        /// The values of a resource (the manifest's JSON has them by these names).
        private struct Values: Sendable {
            var path: String
            let status: Int
            let contentType: String?
            let size: Int
            let sha256: HexDigest
            var etag: Validator
            var lastModified: Validator
            var record: ResponseRecord
            var rewrittenFor: String?
            var file: FileDigest?
        }

        /// A validator's value: the record's field of that name, or one of its own. The crawl's
        /// journal keeps which, so a resource read back compares nothing.
        package enum Validator: Sendable, Equatable {
            case inRecord
            case own(String?)

            init(_ value: String?, field: String, of record: ResponseRecord) {
                self = record.firstValue(named: field, is: value) ? .inRecord : .own(value)
            }

            func value(field: String, of record: ResponseRecord) -> String? {
                switch self {
                case .inRecord: record.firstValue(named: field)
                case .own(let value): value
                }
            }
        }

        private final class Box: Sendable {
            let values: Values
            init(_ values: Values) { self.values = values }
        }

        private var box: Box

        public init(
            path: String, status: Int, contentType: String?, size: Int, sha256: String,
            etag: String?, lastModified: String?, record: ResponseRecord, rewrittenFor: String? = nil,
            file: FileDigest? = nil
        ) {
            self.init(
                path: path, status: status, contentType: contentType, size: size, digest: HexDigest(sha256),
                etag: Validator(etag, field: "etag", of: record),
                lastModified: Validator(lastModified, field: "last-modified", of: record),
                record: record, rewrittenFor: rewrittenFor, file: file)
        }

        /// A resource from its values as held: what the crawl's journal keeps.
        package init(
            path: String, status: Int, contentType: String?, size: Int, digest: HexDigest,
            etag: Validator, lastModified: Validator, record: ResponseRecord, rewrittenFor: String?, file: FileDigest?
        ) {
            box = Box(
                Values(
                    path: path, status: status, contentType: contentType, size: size, sha256: digest,
                    etag: etag, lastModified: lastModified, record: record, rewrittenFor: rewrittenFor, file: file))
        }

        private enum CodingKeys: String, CodingKey {
            case path, status, contentType, size, sha256, etag, lastModified, record, rewrittenFor, file
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                path: try container.decode(String.self, forKey: .path),
                status: try container.decode(Int.self, forKey: .status),
                contentType: try container.decodeIfPresent(String.self, forKey: .contentType),
                size: try container.decode(Int.self, forKey: .size),
                sha256: try container.decode(String.self, forKey: .sha256),
                etag: try container.decodeIfPresent(String.self, forKey: .etag),
                lastModified: try container.decodeIfPresent(String.self, forKey: .lastModified),
                record: try container.decode(ResponseRecord.self, forKey: .record),
                rewrittenFor: try container.decodeIfPresent(String.self, forKey: .rewrittenFor),
                file: try container.decodeIfPresent(FileDigest.self, forKey: .file))
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(path, forKey: .path)
            try container.encode(status, forKey: .status)
            try container.encodeIfPresent(contentType, forKey: .contentType)
            try container.encode(size, forKey: .size)
            try container.encode(sha256, forKey: .sha256)
            try container.encodeIfPresent(etag, forKey: .etag)
            try container.encodeIfPresent(lastModified, forKey: .lastModified)
            try container.encode(record, forKey: .record)
            try container.encodeIfPresent(rewrittenFor, forKey: .rewrittenFor)
            try container.encodeIfPresent(file, forKey: .file)
        }

        public static func == (lhs: Resource, rhs: Resource) -> Bool {
            lhs.box === rhs.box
                || (lhs.path == rhs.path && lhs.status == rhs.status
                    && lhs.contentType == rhs.contentType && lhs.size == rhs.size && lhs.digest == rhs.digest
                    && lhs.etag == rhs.etag && lhs.lastModified == rhs.lastModified && lhs.record == rhs.record
                    && lhs.rewrittenFor == rhs.rewrittenFor && lhs.file == rhs.file)
        }

        /// Changes one value: a new box, as others may share this one.
        private mutating func change(_ body: (inout Values) -> Void) {
            var values = box.values
            body(&values)
            box = Box(values)
        }

        public var path: String { box.values.path }
        public var status: Int { box.values.status }
        public var contentType: String? { box.values.contentType }
        /// Size and SHA-256 of the response body (the original bytes).
        public var size: Int { box.values.size }
        public var sha256: String { box.values.sha256.text }
        /// The SHA-256 as held, for comparing and collecting without making its text.
        package var digest: HexDigest { box.values.sha256 }
        /// The validators as held.
        package var validators: (etag: Validator, lastModified: Validator) { (box.values.etag, box.values.lastModified) }
        public var etag: String? { box.values.etag.value(field: "etag", of: box.values.record) }
        public var lastModified: String? { box.values.lastModified.value(field: "last-modified", of: box.values.record) }
        /// The record. Setting it keeps the validators' values: a validator that was the old
        /// record's field is kept as its own value when the new record's differs.
        public var record: ResponseRecord {
            get { box.values.record }
            set {
                let (etag, lastModified) = (self.etag, self.lastModified)
                change { values in
                    values.record = newValue
                    values.etag = Validator(etag, field: "etag", of: newValue)
                    values.lastModified = Validator(lastModified, field: "last-modified", of: newValue)
                }
            }
        }
        /// The digest of the link targets (`LinkTargets.digest`) this file's links
        /// were rewritten against; nil until they are. A file is rewritten again (from its kept
        /// original) when the targets change, so a crawl killed at any moment finishes right.
        public var rewrittenFor: String? {
            get { box.values.rewrittenFor }
            set { change { $0.rewrittenFor = newValue } }
        }
        /// The file on disk when rewriting changed it; nil when it holds the original bytes.
        public var file: FileDigest? {
            get { box.values.file }
            set { change { $0.file = newValue } }
        }

        /// Notes both at once (one new box): rewritten against `targets`, into `file`.
        public mutating func setRewritten(for targets: String?, file: FileDigest?) {
            change { values in
                values.rewrittenFor = targets
                values.file = file
            }
        }

        /// Moves it into the file `shared`, which another URL's resource has (one new box): its
        /// path and its rewriting are that one's.
        public mutating func share(_ shared: Resource) {
            change { values in
                values.path = shared.path
                values.rewrittenFor = shared.rewrittenFor
                values.file = shared.file
            }
        }

        /// HTML and CSS have links to rewrite.
        /// HTML or CSS, the documents whose links are rewritten; nil for anything else.
        public var kind: LinkRewriter.Kind? {
            let type = (contentType ?? "").lowercased()
            if type.containsBytes("html") { return .html }
            if type.hasPrefix("text/css") { return .css }
            return nil
        }

        /// What the file on disk must be.
        public var fileDigest: FileDigest { file ?? FileDigest(sha256: sha256, size: size) }
    }

    public struct Redirect: Sendable, Codable, Equatable {
        /// The normalized absolute URL redirected to.
        public let location: String
        public let status: Int
        public let record: ResponseRecord

        public init(location: String, status: Int, record: ResponseRecord) {
            self.location = location
            self.status = status
            self.record = record
        }
    }

    public static let currentVersion = 2

    public var version = currentVersion
    /// The crawl's seeds, in the order given (nil in manifests written before they were kept);
    /// `mirror serve` opens the first at `/`.
    public var seeds: [String]?
    public var resources: [String: Resource] = [:]
    public var redirects: [String: Redirect] = [:]
    /// The generated `index.html` opening the first seed's file.
    public var index: FileDigest?
    /// The folder's search index, `.mirror/search.sqlite`, when the crawl made one.
    public var search: FileDigest?
    /// Where a folder keeps its search index, relative to the folder.
    public static let searchIndexPath = ".mirror/search.sqlite"

    public init() {}

    /// Decodes the resources and redirects in URL order: a dictionary's order differs from one
    /// decoding to the next, and a manifest with several faults is refused for the same one
    /// (the first in URL order) every time.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(Int.self, forKey: .version)
        seeds = try container.decodeIfPresent([String].self, forKey: .seeds)
        resources = try Self.inURLOrder(Resource.self, from: container, key: .resources)
        redirects = try Self.inURLOrder(Redirect.self, from: container, key: .redirects)
        index = try container.decodeIfPresent(FileDigest.self, forKey: .index)
        search = try container.decodeIfPresent(FileDigest.self, forKey: .search)
    }

    private enum CodingKeys: String, CodingKey { case version, seeds, resources, redirects, index, search }

    /// A JSON object's key: a URL.
    private struct URLKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private static func inURLOrder<Value: Decodable>(
        _ type: Value.Type, from container: KeyedDecodingContainer<CodingKeys>, key: CodingKeys
    ) throws -> [String: Value] {
        let object = try container.nestedContainer(keyedBy: URLKey.self, forKey: key)
        let urls = object.allKeys.map(\.stringValue).sorted()
        var values = [String: Value](minimumCapacity: urls.count)
        for url in urls { values[url] = try object.decode(type, forKey: URLKey(stringValue: url)) }
        return values
    }

    /// The file a URL ended up in, following redirects (at most 10 hops, loops give nil).
    public func path(for url: String) -> String? {
        LinkTargets.path(for: url, redirects: redirects) { resources[$0]?.path }
    }

    /// The folder keeping the original bodies of rewritten files, named by their SHA-256.
    public static let originalsFolder = ".mirror/originals"

    /// Where the original body of a rewritten file is kept.
    public static func originalPath(sha256: String) -> String { "\(originalsFolder)/\(sha256)" }

    /// Every file of the folder this manifest describes (besides the manifest itself), by path
    /// relative to the folder: saved files, originals of rewritten ones, `index.html` and the
    /// search index.
    public var files: [String: FileDigest] {
        var files: [String: FileDigest] = [:]
        for resource in resources.values {
            files[resource.path] = resource.fileDigest
            if resource.file != nil {
                files[Self.originalPath(sha256: resource.sha256)] = FileDigest(sha256: resource.sha256, size: resource.size)
            }
        }
        if let index { files["index.html"] = index }
        if let search { files[Self.searchIndexPath] = search }
        return files
    }
}
