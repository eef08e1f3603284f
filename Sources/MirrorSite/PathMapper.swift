import MirrorCore

/// Maps a URL and its content type to the relative path of its file in the offline folder.
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
///   `.jpeg` for JPEG; any known extension when the type is unknown). Otherwise `~` and the
///   extension for the type are added: `/docs` (HTML) → `docs~.html`, `/docs/` →
///   `docs/index.html`, `/docs.html` → `docs.html`, `/x.php` (HTML) → `x.php~.html`; with
///   an unknown type just `~` (`/LICENSE` → `LICENSE~`). The mark keeps `/a` and `/a.html`
///   apart, as nothing here can tell whether they are the same resource.
/// - The query goes after `@`, before the extension: `page.html?id=3&lang=en` →
///   `page@id=3&lang=en.html`. A query over 64 bytes is left out and the name gets a hash
///   (`search@~1a2b3c4d.html`).
/// - Percent escapes are decoded into characters where that is safe and reversible
///   (`%C3%BCn%C3%AFcode.html` → `ünïcode.html`, `a%20b` → `a b`). What is unsafe stays or
///   becomes `%XX`: `<>:"/\|?*%@~`, controls, invalid UTF-8, invisible characters, escapes
///   of characters the URL could have written literally (`%3B`), a leading dot or space,
///   a trailing dot or space, the first letter of a Windows device name (`con.txt` →
///   `%63on.txt`) and of a file literally named `index.<ext>` (`%69ndex.html`, so it
///   cannot be taken for a folder's index). Decoding never yields `/`, `.`, `..` or NUL.
/// - `~` and 8 hex digits of SHA-256 (of the URL part, so equal names mean equal URLs) go
///   before the suffix when a name is longer than `maxSegmentBytes` (it is cut, keeping its
///   extension), has characters that a case- or normalization-insensitive disk could
///   confuse (`/A.html` → `A~<hash>.html`, `/a.html` → `a.html`), or is otherwise ambiguous.
/// - Files and folders never share a name: a file name ends in a known extension or `~`; a
///   folder name never does (`/a.html/b` → folder `a%2Ehtml`; empty segments are `~`).
public struct PathMapper: Sendable {
    /// The longest component, in UTF-8 bytes.
    public let maxSegmentBytes: Int

    /// Queries longer than this (rendered, in bytes) are replaced by a hash.
    static let maxQueryBytes = 64

    /// - Parameter maxSegmentBytes: the longest component, in UTF-8 bytes; at least 32.
    public init(maxSegmentBytes: Int = 200) {
        precondition(maxSegmentBytes >= 32, "maxSegmentBytes must leave room for a hash and an extension")
        self.maxSegmentBytes = maxSegmentBytes
    }

    /// The path of `url`'s file, or nil when `url` is not an absolute http(s) URL.
    /// - Parameter contentType: the response's `Content-Type`, parameters allowed.
    public func path(for url: String, contentType: String?) -> LocalPath? {
        guard let parts = URLParts(url) else { return nil }
        // The pieces of `parts.normalized`, taken apart without parsing that string again.
        let path = URLParts.removeDotSegments(PercentEncoding.normalize(parts.path.isEmpty ? "/" : parts.path, allowing: .path))
        let query = parts.query.map { PercentEncoding.normalize($0, allowing: .query) }
        var segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        let file = segments.popLast() ?? ""
        var components = [hostName(parts)]
        components += segments.map(folderName)
        components.append(fileName(file, query: query, contentType: contentType))
        return LocalPath(components: components)
    }

    private func hostName(_ parts: URLParts) -> String {
        var body = NameRenderer.renderHost(parts.host)
        var key = "H" + parts.host
        if let port = parts.port, port != parts.defaultPort {
            body += NameUnit.literals("_\(port)")
            key += ":\(port)"
        }
        return ComponentName(body: body, suffix: "", hashedSuffix: "", key: key).finalText(maxBytes: maxSegmentBytes)
    }

    private func folderName(_ segment: Substring) -> String {
        let (units, ambiguous) = NameRenderer.render(segment, context: .pathSegment)
        var name = ComponentName(body: units, suffix: "", hashedSuffix: "", key: "D" + segment)
        if units.isEmpty { name.body = [.literal("~")] }
        name.needsHash = ambiguous
        return name.finalText(maxBytes: maxSegmentBytes)
    }

    private func fileName(_ segment: Substring, query: String?, contentType: String?) -> String {
        let fitting = MediaTypeExtensions.extensions(for: contentType)
        var stem: [NameUnit]
        var ambiguous = false
        let suffix: String
        let hashedSuffix: String
        if segment.isEmpty {
            stem = NameUnit.literals("index")
            suffix = "." + (fitting?.first ?? "html")
            hashedSuffix = suffix
        } else if let (base, ext) = Self.splitExtension(segment),
                  (fitting.map(Set.init) ?? MediaTypeExtensions.known).contains(ext.lowercased()) {
            (stem, ambiguous) = NameRenderer.render(base, context: .pathSegment)
            if stem == NameUnit.literals("index") { stem[0] = stem[0].escapedForm }
            suffix = "." + ext
            hashedSuffix = suffix
        } else {
            (stem, ambiguous) = NameRenderer.render(segment, context: .pathSegment)
            hashedSuffix = fitting.map { "." + $0[0] } ?? "~"
            suffix = fitting.map { "~." + $0[0] } ?? "~"
        }
        var name = ComponentName(
            body: stem, suffix: suffix, hashedSuffix: hashedSuffix,
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
    private static func splitExtension(_ segment: Substring) -> (Substring, String)? {
        guard let dot = segment.lastIndex(of: "."), dot != segment.startIndex else { return nil }
        let ext = segment[segment.index(after: dot)...]
        guard (1...10).contains(ext.count), ext.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            return nil
        }
        return (segment[..<dot], String(ext))
    }
}
