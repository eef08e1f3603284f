import Crypto
import MirrorCore

/// The map of an offline folder, saved as `.mirror/manifest.json`: every saved URL with its
/// file, status, type, validators, size and digest, every redirect, and for each the record a
/// cache needs to reload the original response (so a bundle of the folder can refill a cache).
///
/// Version 2. A file whose links were rewritten differs from the response's body: `file` gives
/// the digest of the bytes on disk, and the original body is kept as `.mirror/originals/<sha256>`.
public struct SiteManifest: Sendable, Codable, Equatable {
    /// The size and SHA-256 (lower-case hex) of a file.
    public struct FileDigest: Sendable, Codable, Equatable {
        public var sha256: String
        public var size: Int

        public init(sha256: String, size: Int) {
            self.sha256 = sha256
            self.size = size
        }
    }

    /// One saved URL. Its values are held in one shared, immutable object (copied when one
    /// changes, which only a re-crawl and the rewriting do): the manifest's table then holds a
    /// reference per URL instead of the ≈ 200 bytes of the values themselves in every bucket —
    /// at 100,000 URLs, 262,144 buckets, and as many again while the table grows.
    public struct Resource: Sendable, Codable, Equatable {
        /// The values of a resource, as the manifest's JSON has them.
        private struct Values: Sendable, Codable, Equatable {
            let path: String
            let status: Int
            let contentType: String?
            let size: Int
            let sha256: String
            let etag: String?
            let lastModified: String?
            var record: ResponseRecord
            var rewrittenFor: String?
            var file: FileDigest?
        }

        private final class Box: Sendable {
            let values: Values
            init(_ values: Values) { self.values = values }
        }

        private var box: Box

        public init(path: String, status: Int, contentType: String?, size: Int, sha256: String,
                    etag: String?, lastModified: String?, record: ResponseRecord, rewrittenFor: String? = nil,
                    file: FileDigest? = nil) {
            box = Box(Values(path: path, status: status, contentType: contentType, size: size, sha256: sha256,
                             etag: etag, lastModified: lastModified, record: record, rewrittenFor: rewrittenFor, file: file))
        }

        public init(from decoder: any Decoder) throws { box = Box(try Values(from: decoder)) }

        public func encode(to encoder: any Encoder) throws { try box.values.encode(to: encoder) }

        public static func == (lhs: Resource, rhs: Resource) -> Bool { lhs.box === rhs.box || lhs.box.values == rhs.box.values }

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
        public var sha256: String { box.values.sha256 }
        public var etag: String? { box.values.etag }
        public var lastModified: String? { box.values.lastModified }
        public var record: ResponseRecord {
            get { box.values.record }
            set { change { $0.record = newValue } }
        }
        /// The digest of the link targets (`SiteManifest.linkTargetsDigest`) this file's links
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

        /// HTML and CSS have links to rewrite.
        var kind: LinkRewriter.Kind? {
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

    public init() {}

    /// The file a URL ended up in, following redirects (at most 10 hops, loops give nil).
    public func path(for url: String) -> String? {
        var current = url
        for _ in 0...10 {
            if let resource = resources[current] { return resource.path }
            guard let next = redirects[current]?.location else { return nil }
            current = next
        }
        return nil
    }

    /// A digest of every URL with the file it leads to (directly or through a redirect), in the
    /// order of the URLs' bytes: what rewritten links depend on, so they are right while it
    /// stays the same. Hashed in place: at 100,000 URLs a dictionary of them and two arrays per
    /// URL took half a second before the rewriting could start.
    var linkTargetsDigest: String {
        var hasher = SHA256()
        var urls = Array(resources.keys)
        urls += redirects.keys.filter { resources[$0] == nil }
        urls.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        func update(_ text: String) {
            var text = text
            text.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
            hasher.update(data: [0])
        }
        for url in urls {
            guard let path = path(for: url) else { continue }
            update(url)
            update(path)
        }
        return Hex.string(hasher.finalize())
    }

    /// The folder keeping the original bodies of rewritten files, named by their SHA-256.
    public static let originalsFolder = ".mirror/originals"

    /// Where the original body of a rewritten file is kept.
    public static func originalPath(sha256: String) -> String { "\(originalsFolder)/\(sha256)" }

    /// Every file of the folder this manifest describes (besides the manifest itself), by path
    /// relative to the folder: saved files, originals of rewritten ones, and `index.html`.
    public var files: [String: FileDigest] {
        var files: [String: FileDigest] = [:]
        for resource in resources.values {
            files[resource.path] = resource.fileDigest
            if resource.file != nil {
                files[Self.originalPath(sha256: resource.sha256)] = FileDigest(sha256: resource.sha256, size: resource.size)
            }
        }
        if let index { files["index.html"] = index }
        return files
    }
}
