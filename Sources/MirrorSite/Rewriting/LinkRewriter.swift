import MirrorCore
public import MirrorHTML

/// Rewrites the links of a saved HTML page or style sheet so that it works offline, changing
/// only the bytes of the URLs: every other byte of the document stays as it was (a libxml2 tree
/// is never serialised, which would rewrite the whole document).
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
    ///   - references: the page's references as `HTMLReferenceLocator` found them in these very
    ///     bytes, when the caller kept them from its own parse; else (or when they do not fit the
    ///     bytes) the page is parsed again.
    ///   - target: the file (relative to the output folder) a normalized absolute URL was saved
    ///     to, or nil when it was not saved.
    public func rewriteHTML(
        _ bytes: [UInt8], charset: String, pageURL: String, pagePath: String, references known: [HTMLReference]? = nil,
        target: (String) -> String?
    ) -> [UInt8] {
        guard let page = URLParts(pageURL), CharsetSniffer.isASCIICompatible(charset) else { return bytes }
        let references =
            known.flatMap { Self.fit($0, count: bytes.count) }
            ?? HTMLReferenceLocator.references(in: bytes, charset: charset)
        let base = references.first { $0.role == .base }.flatMap { page.resolve($0.value) } ?? page
        var edits: [(Range<Int>, [UInt8])] = []
        var targets = Targets()
        for reference in references {
            switch reference.role {
            case .base:
                let ownName = pagePath.split(separator: "/").last.map(String.init) ?? ""
                edits.append((reference.range, Self.escaped(ownName, keeping: Self.pathBytes)))
            case .link:
                guard
                    let value = replacement(
                        reference.value, base: base, from: pagePath, inAttribute: reference.inAttribute, target: target,
                        targets: &targets)
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
        var targets = Targets()
        for reference in references {
            guard
                let value = replacement(
                    reference.value, base: file, from: filePath, inAttribute: false, target: target, targets: &targets)
            else { continue }
            edits.append((reference.range, value))
        }
        return Self.splice(bytes, edits)
    }

    /// The new bytes of each reference (before its fragment) a document has, or nil where it
    /// stays as written: a document refers to few files many times (`#` fragments). Keyed by
    /// bytes: Strings compare by canonical equivalence, but two spellings of `é` are two URLs.
    private typealias Targets = [UTF8Key: [UInt8]?]

    /// The new bytes for `reference`, or nil when it stays as written.
    private func replacement(
        _ reference: String, base: URLParts, from path: String, inAttribute: Bool, target: (String) -> String?,
        targets: inout Targets
    ) -> [UInt8]? {
        // A fragment-only reference (`#top`, CSS `url(#filter)`) names a part of this document.
        let first = reference.utf8.first { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D && $0 != 0x0C }
        guard first != UInt8(ascii: "#") else { return nil }
        /// The new bytes of the URL `resolved` names, without its fragment.
        func file(_ resolved: URLParts) -> [UInt8] {
            let url = resolved.normalized
            guard let file = target(url) else { return Self.escaped(url, keeping: Self.urlBytes) }
            return Self.escaped(LocalPath.relativePath(from: path, to: file), keeping: Self.pathBytes)
        }
        var value: [UInt8]
        let fragment: Substring?
        if let (targetPart, fragmentPart) = URLParts.splitAtFragment(reference) {
            guard let known = targets.memoized(UTF8Key(targetPart), { base.resolve(String(targetPart)).map(file) })
            else { return nil }
            value = known
            fragment = fragmentPart
        } else {
            guard let resolved = base.resolve(reference) else { return nil }
            value = file(resolved)
            fragment = resolved.fragment?[...]
        }
        if let fragment {
            value.append(UInt8(ascii: "#"))
            value += Self.escaped(fragment, keeping: Self.fragmentBytes)
        }
        if inAttribute, value.contains(UInt8(ascii: "&")) {
            value = value.flatMap { $0 == UInt8(ascii: "&") ? Array("&amp;".utf8) : [$0] }
        }
        return value
    }

    /// `references` when they are in order, apart, and inside a document of `count` bytes.
    private static func fit(_ references: [HTMLReference], count: Int) -> [HTMLReference]? {
        var position = 0
        for reference in references {
            guard reference.range.lowerBound >= position, reference.range.upperBound <= count else { return nil }
            position = reference.range.upperBound
        }
        return references
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
    private static func escaped(_ text: some StringProtocol, keeping: [Bool]) -> [UInt8] {
        let hex = Array("0123456789ABCDEF".utf8)
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if keeping[Int(byte)] {
                output.append(byte)
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(hex[Int(byte >> 4)])
                output.append(hex[Int(byte & 0x0F)])
            }
        }
        return output
    }

    /// Kept in a relative path: unreserved characters, `/`, and sub-delimiters that mean nothing
    /// in a path, an HTML attribute, a `srcset` or CSS (so not `&`, `,`, `'`, `(`, `)`, nor `:`,
    /// which would make the first segment a scheme).
    private static let pathCharacters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/!$*+;=@"
    private static let pathBytes = byteTable(pathCharacters.utf8)
    /// Kept in a fragment: as in a path, plus `?`, `:` and the `%` of escapes already written.
    private static let fragmentBytes = byteTable((pathCharacters + "?:%").utf8)
    /// Kept in an absolute URL (already normalized): printable ASCII but quotes, parentheses,
    /// angle brackets, backslash and backtick.
    private static let urlBytes = byteTable((0x21...0x7E).filter { !"\"'()<>\\`".utf8.contains($0) })

    /// Whether each byte is one of `bytes`: a table, where a Set would hash every byte.
    private static func byteTable(_ bytes: some Sequence<UInt8>) -> [Bool] {
        var table = [Bool](repeating: false, count: 256)
        for byte in bytes { table[Int(byte)] = true }
        return table
    }
}
