import MirrorCore
import MirrorHTML

/// Rewrites the links of a saved HTML page or style sheet so that it works offline, changing
/// only the bytes of the URLs: every other byte of the document stays as it was (DESIGN.md: a
/// libxml2 tree is never serialised).
///
/// Each reference is resolved against the document's URL (and `<base href>`) and normalized;
/// `target` then says which file that URL was saved to (following redirects is its business).
/// A saved URL becomes a path relative to the document's own file, percent-escaped so that it
/// works from file:// (`%`, `?`, `#`, spaces, `&`, `:`, `,`, quotes, parentheses, non-ASCII);
/// an unsaved one becomes its absolute URL. The reference's fragment is kept. References that
/// fetch nothing (`#x`, `mailto:`, `javascript:`, `data:`, …) or do not resolve stay as written.
///
/// New values are ASCII, so the document's charset does not matter for them; they need no
/// quotes in any context (an unquoted attribute, `url()` without quotes, a `srcset`), so every
/// reference keeps its quoting style. Inside attributes `&` is written `&amp;`.
///
/// `<base href>`: relative paths are relative to the page's file, so the base element is made
/// harmless by pointing it at that file itself (`<base href="page.html">`) — not at its folder,
/// which would send `#section` links to the folder instead of the page. Its other attributes
/// (`target`) keep working.
public struct LinkRewriter: Sendable {
    /// The documents whose links can be rewritten.
    public enum Kind: Sendable { case html, css }

    public init() {}

    /// The HTML page `bytes`, saved from `pageURL` to `pagePath`, with its links rewritten.
    /// - Parameters:
    ///   - charset: the page's encoding (`CharsetSniffer`). UTF-16 pages are returned unchanged.
    ///   - pagePath: the page's file, relative to the output folder (`host/docs/index.html`).
    ///   - target: the file (relative to the output folder) a normalized absolute URL was saved
    ///     to, or nil when it was not saved.
    public func rewriteHTML(
        _ bytes: [UInt8], charset: String, pageURL: String, pagePath: String, target: (String) -> String?
    ) -> [UInt8] {
        guard let page = URLParts(pageURL), !charset.lowercased().hasPrefix("utf-16") else { return bytes }
        let references = HTMLReferenceLocator.references(in: bytes, charset: charset)
        let base = references.first { $0.role == .base }.flatMap { page.resolve($0.value) } ?? page
        var edits: [(Range<Int>, [UInt8])] = []
        for reference in references {
            switch reference.role {
            case .base:
                let ownName = pagePath.split(separator: "/").last.map(String.init) ?? ""
                edits.append((reference.range, Self.escaped(ownName, keeping: Self.pathBytes)))
            case .link:
                guard let value = replacement(reference.value, base: base, from: pagePath, inAttribute: reference.inAttribute, target: target)
                else { continue }
                edits.append((reference.range, value))
            }
        }
        return Self.splice(bytes, edits)
    }

    /// The style sheet `bytes` (UTF-8 or ASCII-compatible), saved from `fileURL` to `filePath`,
    /// with its `url()` and `@import` references rewritten.
    public func rewriteCSS(_ bytes: [UInt8], fileURL: String, filePath: String, target: (String) -> String?) -> [UInt8] {
        guard let file = URLParts(fileURL) else { return bytes }
        let references = bytes.withUnsafeBufferPointer(CSSLinkExtractor.references(in:))
        var edits: [(Range<Int>, [UInt8])] = []
        for reference in references {
            guard let value = replacement(reference.value, base: file, from: filePath, inAttribute: false, target: target)
            else { continue }
            edits.append((reference.range, value))
        }
        return Self.splice(bytes, edits)
    }

    /// The new bytes for `reference`, or nil when it stays as written.
    private func replacement(
        _ reference: String, base: URLParts, from path: String, inAttribute: Bool, target: (String) -> String?
    ) -> [UInt8]? {
        // A fragment-only reference (`#top`, CSS `url(#filter)`) names a part of this document.
        let first = reference.unicodeScalars.first { !" \t\n\r\u{0C}".unicodeScalars.contains($0) }
        guard first != "#", let resolved = base.resolve(reference) else { return nil }
        var value: [UInt8]
        if let file = target(resolved.normalized) {
            value = Self.escaped(LocalPath.relativePath(from: path, to: file), keeping: Self.pathBytes)
        } else {
            value = Self.escaped(resolved.normalized, keeping: Self.urlBytes)
        }
        if let fragment = resolved.fragment {
            value += [UInt8(ascii: "#")] + Self.escaped(fragment, keeping: Self.fragmentBytes)
        }
        if inAttribute, value.contains(UInt8(ascii: "&")) {
            value = value.flatMap { $0 == UInt8(ascii: "&") ? Array("&amp;".utf8) : [$0] }
        }
        return value
    }

    /// `bytes` with each range replaced (ranges in order, not overlapping).
    private static func splice(_ bytes: [UInt8], _ edits: [(Range<Int>, [UInt8])]) -> [UInt8] {
        guard !edits.isEmpty else { return bytes }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + edits.count * 16)
        var position = 0
        for (range, value) in edits.sorted(by: { $0.0.lowerBound < $1.0.lowerBound }) where range.lowerBound >= position {
            output += bytes[position..<range.lowerBound]
            output += value
            position = range.upperBound
        }
        output += bytes[position...]
        return output
    }

    /// `text` as UTF-8 with every byte not in `keeping` written as `%XX`.
    private static func escaped(_ text: String, keeping: Set<UInt8>) -> [UInt8] {
        let hex = Array("0123456789ABCDEF".utf8)
        var output: [UInt8] = []
        for byte in text.utf8 {
            if keeping.contains(byte) {
                output.append(byte)
            } else {
                output += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return output
    }

    /// Kept in a relative path: unreserved characters, `/`, and sub-delimiters that mean nothing
    /// in a path, an HTML attribute, a `srcset` or CSS (so not `&`, `,`, `'`, `(`, `)`, nor `:`,
    /// which would make the first segment a scheme).
    private static let pathBytes = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/!$*+;=@".utf8))
    /// Kept in a fragment: as in a path, plus `?`, `:` and the `%` of escapes already written.
    private static let fragmentBytes = pathBytes.union("?:%".utf8)
    /// Kept in an absolute URL (already normalized): printable ASCII but quotes, parentheses,
    /// angle brackets, backslash and backtick.
    private static let urlBytes = Set<UInt8>(0x21...0x7E).subtracting("\"'()<>\\`".utf8)
}
