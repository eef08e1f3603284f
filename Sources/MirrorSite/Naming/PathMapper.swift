import MirrorCore
import MirrorLock

/// Maps a URL and its content type to the preferred relative path of its file in the offline
/// folder: the name the site uses, made legal everywhere. `PathRegistry` then makes the
/// preferred paths of one folder unique (case-folded, files apart from folders, `/` and
/// `/index.html` sharing a file when their bodies agree).
///
/// The mapping is pure and deterministic: it depends only on the normalized URL
/// (`URLNormalizer`; fragment ignored) and the content type. The scheme:
///
/// - The first component is the host, or `host_port` for a port that is not the scheme's
///   default (`127.0.0.1_8080`). http and https share a folder, as a site's two schemes
///   usually serve the same pages.
/// - Each path segment but the last is a folder; the last is the file. An empty last
///   segment (`/`, `/docs/`) is `index.<ext>`, `<ext>` from the type (`html` when unknown).
/// - A file keeps its name when it already ends in a fitting extension (`.htm` for HTML,
///   `.jpeg` for JPEG; any name when the type is unknown): `/index.html` → `index.html`,
///   `/genindex-A.html` → `genindex-A.html`, `/LICENSE` (unknown) → `LICENSE`. Otherwise the
///   type's extension is added: `/docs` (HTML) → `docs.html`, `/x.php` (HTML) → `x.php.html`.
///   So `/docs` and `/docs.html`, or `/` and `/index.html`, prefer the same file.
/// - The query goes after `@`, before the extension: `page.html?id=3&lang=en` →
///   `page@id=3&lang=en.html`. A query over 64 bytes is left out and the name gets a hash
///   (`search@~1a2b3c4d.html`).
/// - Percent escapes are decoded into characters where that is safe and reversible
///   (`%C3%BCn%C3%AFcode.html` → `ünïcode.html`, `a%20b` → `a b`). What is unsafe stays or
///   becomes `%XX`: `<>:"/\|?*%@~`, controls, invalid UTF-8, invisible characters, escapes
///   of characters the URL could have written literally (`%3B`), a leading dot or space,
///   a trailing dot or space, and the first letter of a Windows device name (`con.txt` →
///   `%63on.txt`). Decoding never yields `/`, `.`, `..` or NUL.
/// - `~` and 8 hex digits of SHA-256 (of the URL part, so equal names mean equal URLs) go
///   before the extension when a name is longer than `maxSegmentBytes` (it is cut, keeping
///   its extension) or would otherwise be ambiguous (`/a%3Ab.html` vs `/a:b.html`). Capitals
///   get no hash: `/A.html` → `A.html`.
/// - Distinct folders get distinct names, and a folder name never ends in a known extension
///   (`/a.html/b` → folder `a%2Ehtml`; empty segments are `~`), so folder `docs` and file
///   `docs.html` never meet; a file whose name does not end in a known extension can still
///   prefer a folder's name (`/a` and `/a/b`), which `PathRegistry` resolves.
public struct PathMapper: Sendable {
    /// The longest component, in UTF-8 bytes.
    public let maxSegmentBytes: Int

    /// Queries longer than this (rendered, in bytes) are replaced by a hash.
    static let maxQueryBytes = 64

    /// The folder name of each host (and port) named so far: a crawl names nearly every page
    /// under the same few hosts, and rendering one took as long as the rest of a short path.
    /// Shared by the copies of this mapper; at most `maxKnownHosts` are kept.
    private let hostNames = Locked<[UTF8Key: String]>([:])
    private static let maxKnownHosts = 1024

    /// - Parameter maxSegmentBytes: the longest component, in UTF-8 bytes; at least 32.
    public init(maxSegmentBytes: Int = 200) {
        precondition(maxSegmentBytes >= 32, "maxSegmentBytes must leave room for a hash and an extension")
        self.maxSegmentBytes = maxSegmentBytes
    }

    /// The preferred path of `url`'s file, or nil when `url` is not an absolute http(s) URL.
    /// - Parameter contentType: the response's `Content-Type`, parameters allowed.
    public func path(for url: String, contentType: String?) -> LocalPath? {
        guard let parts = URLParts(url) else { return nil }
        // The pieces of `parts.normalized`, taken apart without parsing that string again.
        let path = URLParts.removeDotSegments(PercentEncoding.normalize(parts.path.isEmpty ? "/" : parts.path, allowing: .path))
        let query = parts.query.map { PercentEncoding.normalize($0, allowing: .query) }
        var segments = path.parts(separatedBy: UInt8(ascii: "/")).dropFirst()
        let file = segments.popLast() ?? ""
        var components = [hostName(parts)]
        components += segments.map(folderName)
        components.append(fileName(file, query: query, contentType: contentType))
        return LocalPath(components: components)
    }

    private func hostName(_ parts: URLParts) -> String {
        // The name depends on the host and a port that is not the scheme's: the authority, by
        // its bytes (two spellings of one text by Unicode's equivalence render apart).
        hostNames.memoized(UTF8Key(parts.authority), limit: Self.maxKnownHosts) { renderHostName(parts) }
    }

    private func renderHostName(_ parts: URLParts) -> String {
        var body = NameRenderer.renderHost(parts.host)
        var key = "H" + parts.host
        if let port = parts.port, port != parts.defaultPort {
            body += NameUnit.literals("_\(port)")
            key += ":\(port)"
        }
        return ComponentName(body: body, suffix: "", isFolder: true, key: key).finalText(maxBytes: maxSegmentBytes)
    }

    private func folderName(_ segment: Substring) -> String {
        let (units, ambiguous) = NameRenderer.render(segment, context: .pathSegment)
        var name = ComponentName(body: units, suffix: "", isFolder: true, key: "D" + segment)
        if units.isEmpty { name.body = [.literal("~")] }
        name.needsHash = ambiguous
        return name.finalText(maxBytes: maxSegmentBytes)
    }

    private func fileName(_ segment: Substring, query: String?, contentType: String?) -> String {
        let fitting = MediaTypeExtensions.extensions(for: contentType)
        let stem: [NameUnit]
        var ambiguous = false
        let suffix: String
        if segment.isEmpty {
            stem = NameUnit.literals("index")
            suffix = "." + (fitting?.first ?? "html")
        } else if let (base, ext) = Self.splitExtension(segment), fitting?.contains(ext.lowercased()) ?? true {
            (stem, ambiguous) = NameRenderer.render(base, context: .pathSegment)
            suffix = "." + ext
        } else {
            (stem, ambiguous) = NameRenderer.render(segment, context: .pathSegment)
            suffix = fitting.map { "." + $0[0] } ?? ""
        }
        var name = ComponentName(
            body: stem, suffix: suffix, isFolder: false,
            key: "F" + segment + (query.map { "?" + $0 } ?? "") + "\u{0}" + suffix
        )
        if let query {
            let (queryUnits, queryAmbiguous) = NameRenderer.render(query[...], context: .query)
            name.body += [.literal("@")] + queryUnits
            ambiguous = ambiguous || queryAmbiguous
            if queryUnits.byteCount > Self.maxQueryBytes {
                name.shortBody = stem + [.literal("@")]
                ambiguous = true
            }
        }
        name.needsHash = ambiguous
        return name.finalText(maxBytes: maxSegmentBytes)
    }

    /// `name.ext` split at its last dot, when both parts are non-empty and the extension is
    /// short and alphanumeric.
    static func splitExtension(_ segment: Substring) -> (Substring, String)? {
        // ASCII (a normalized URL's path is): a character a byte, found without Unicode's rules.
        let bytes = segment.utf8
        if bytes.allSatisfy({ $0 < 0x80 }) {
            guard let dot = bytes.lastIndex(of: UInt8(ascii: ".")), dot != bytes.startIndex else { return nil }
            let ext = bytes[bytes.index(after: dot)...]
            guard (1...10).contains(ext.count), ext.allSatisfy(Self.isASCIIAlphanumeric) else { return nil }
            return (Substring(bytes[..<dot]), String(Substring(ext)))
        }
        guard let dot = segment.lastIndex(of: "."), dot != segment.startIndex else { return nil }
        let ext = segment[segment.index(after: dot)...]
        guard (1...10).contains(ext.count), ext.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            return nil
        }
        return (segment[..<dot], String(ext))
    }

    private static func isASCIIAlphanumeric(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: false
        }
    }
}
