import MirrorCompression
import MirrorSite

@testable import MirrorCore
@testable import MirrorHTML

extension FuzzTargets {
    /// The parsers of a page's bytes: links and their rewrite, CSS, srcset, meta refresh,
    /// charsets, text, sitemaps (plain and gzipped).
    static let html: [FuzzTarget] = [srcset, htmlLinks, cssLinks, metaRefresh, charset, htmlText, sitemap, sitemapGzip]

    static let srcset = FuzzTarget(
        "srcset", dictionary: "html.dict",
        contract: "URL ranges in order, inside the value, without whitespace or edge commas; they read back from a srcset rebuilt of them"
    ) { input in
        let ranges = input.withUnsafeBufferPointer(SrcsetParser.urlRanges)
        var previousEnd = 0
        for range in ranges {
            require(
                range.lowerBound >= previousEnd && range.upperBound <= input.count && !range.isEmpty,
                "range \(range) out of order or bounds")
            let url = input[range]
            require(!url.contains(where: ExtractedLink.isASCIIWhitespace), "whitespace in URL \(range)")
            require(url.first != UInt8(ascii: ",") && url.last != UInt8(ascii: ","), "edge comma in URL \(range)")
            previousEnd = range.upperBound
        }
        let urls = ranges.map { Array(input[$0]) }
        var rebuilt: [UInt8] = []
        for (index, url) in urls.enumerated() {
            if index > 0 { rebuilt += Array(", ".utf8) }
            rebuilt += url + Array(" 2x".utf8)
        }
        let reread = rebuilt.withUnsafeBufferPointer(SrcsetParser.urlRanges).map { Array(rebuilt[$0]) }
        require(reread == urls, "rebuilt srcset reads back \(reread.count) URLs of \(urls.count)")
    }

    static let htmlLinks = FuzzTarget(
        "html-links", dictionary: "html.dict",
        contract: """
            references in order, apart, trimmed, inside the page, fetchable; the crawl's, the extractor's and the rewriter's parses \
            agree; the rewrite changes only the references' bytes, each as rewriting it alone does; each new value is a relative \
            path to a saved file inside the folder or an absolute http(s) URL, and no relative reference is left as written
            """
    ) { input in
        let charset = CharsetSniffer.charset(contentType: nil, prefix: Array(input.prefix(1024)))
        let locator = HTMLReferenceLocator(charset: charset)
        locator.feed(input)
        let references = locator.finish(readingText: true)
        var previousEnd = 0
        for reference in references {
            let range = reference.range
            require(range.lowerBound >= previousEnd && range.upperBound <= input.count, "reference \(range) out of order or bounds")
            previousEnd = range.upperBound
            let bytes = input[range]
            require(
                !(bytes.first.map(ExtractedLink.isASCIIWhitespace) ?? false) && !(bytes.last.map(ExtractedLink.isASCIIWhitespace) ?? false),
                "reference \(range) has white space at an edge")
            require(reference.role == .base || ExtractedLink.isFetchable(reference.value), "unfetchable reference '\(reference.value)'")
        }
        require(references.count { $0.role == .base } <= 1, "more than one <base href>")
        let placed = HTMLLinks(references: references)
        let links = locator.links
        require(links.links.starts(with: placed.links), "the links do not start with the references' links")
        require(HTMLLinkExtractor.links(in: input, charset: charset) == links, "the link extractor disagrees with the locator")
        checkRewrite(input, charset: charset, references: references)
    }

    static let cssLinks = FuzzTarget(
        "css-links", dictionary: "html.dict",
        contract: """
            URL ranges in order, apart, inside the style sheet; each value is its range's bytes with CSS escapes decoded; a value \
            written back escaped in url("…"), url(…) and @import "…" reads back the same
            """
    ) { input in
        let references = input.withUnsafeBufferPointer(CSSLinkExtractor.references(in:))
        var previousEnd = 0
        for reference in references {
            let range = reference.range
            require(range.lowerBound >= previousEnd && range.upperBound <= input.count, "range \(range) out of order or bounds")
            previousEnd = range.upperBound
            let expected = cssUnescaped(input[range])
            require(
                Array(reference.value.utf8) == Array(expected.utf8), "value '\(reference.value)' is not its range unescaped: '\(expected)'")
            let value = reference.value
            let escaped = cssEscaped(value)
            var forms = [("a{b:url(\"" + escaped + "\")}", false), ("@import \"" + escaped + "\";", true)]
            // A NUL makes an unquoted URL bad (a string may hold one, written as it is).
            if !value.unicodeScalars.contains("\u{0}") { forms.append(("a{b:url(" + escaped + ")}", false)) }
            for (css, isImport) in forms {
                var css = css
                let reread = css.withUTF8(CSSLinkExtractor.references(in:))
                require(
                    reread.count == 1 && Array(reread[0].value.utf8) == Array(value.utf8) && reread[0].isImport == isImport,
                    "'\(value)' written as \(css.debugDescription) reads back as \(reread.map(\.value))")
            }
        }
    }

    static let metaRefresh = FuzzTarget(
        "meta-refresh", dictionary: "html.dict",
        contract: """
            the URL range is inside the content; a content rebuilt as `0; url=URL` (other delays, separators, cases and quotes) reads \
            back the same URL, for URLs without white space at an edge or a leading quote
            """
    ) { input in
        guard let range = input.withUnsafeBufferPointer(MetaRefreshParser.urlRange) else { return }
        require(range.lowerBound >= 0 && range.upperBound <= input.count, "range \(range) outside \(input.count) bytes")
        let url = Array(input[range])
        let isQuote = { (byte: UInt8) in byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") }
        guard !(url.first.map { ExtractedLink.isASCIIWhitespace($0) || isQuote($0) } ?? false),
            !(url.last.map(ExtractedLink.isASCIIWhitespace) ?? false)
        else { return }
        var contents = ["0; url=", "0;URL = ", "5, Url=", "0 url=", " 1.5;\turl=", ".5,url="].map { Array($0.utf8) + url }
        for quote in [UInt8(ascii: "\""), UInt8(ascii: "'")] where !url.contains(quote) {
            contents.append(Array("0; url=".utf8) + [quote] + url + [quote])
        }
        // Without `url=`, a URL that does not itself start with it.
        if !url.isEmpty, !(url.count >= 3 && url.prefix(3).map({ $0 | 0x20 }) == Array("url".utf8)) {
            contents.append(Array("3; ".utf8) + url)
        }
        for content in contents {
            let reread = content.withUnsafeBufferPointer(MetaRefreshParser.urlRange).map { Array(content[$0]) }
            require(reread == url, "\(String(decoding: content, as: UTF8.self).debugDescription) reads back another URL")
        }
    }

    static let charset = FuzzTarget(
        "charset", dictionary: "html.dict",
        contract: """
            sniffing is total and idempotent (the label sniffed, given back as the Content-Type's charset, is sniffed again); a \
            label from a <meta> is ASCII-compatible; decoding under the sniffed or a named charset gives valid UTF-8 of at most \
            4 bytes a byte, and an attribute's text without NUL
            """
    ) { input in
        let sniffed = CharsetSniffer.charset(contentType: nil, prefix: input)
        require(CharsetSniffer.charset(contentType: nil, prefix: input) == sniffed, "sniffing twice differs")
        checkLabel(sniffed)
        var prescan = MetaPrescan(bytes: input.prefix(1024))
        if let label = prescan.charset() {
            require(!label.utf8.contains { $0 >= 0x41 && $0 <= 0x5A }, "prescan label '\(label)' is not lower-cased")
            if !input.starts(with: [0xEF, 0xBB, 0xBF]) && !input.starts(with: [0xFF, 0xFE]) && !input.starts(with: [0xFE, 0xFF]) {
                require(CharsetSniffer.isASCIICompatible(sniffed), "<meta> label '\(label)' sniffed as '\(sniffed)', not ASCII-compatible")
            }
        }
        // The first line as a Content-Type, the rest as the body.
        let newline = input.firstIndex(of: 0x0A) ?? input.count
        let contentType = String(decoding: input[..<newline], as: UTF8.self)
        let body = Array(input[min(newline + 1, input.count)...])
        let fromHeader = CharsetSniffer.charset(contentType: contentType, prefix: body)
        checkLabel(fromHeader)
        if let parameter = CharsetSniffer.charsetParameter(of: contentType) { require(!parameter.isEmpty, "an empty charset parameter") }
        let named = namedCharsets[Int(input.first ?? 0) % namedCharsets.count]
        for label in [sniffed, fromHeader, named] {
            // At most 4.5 bytes a byte: a lone UTF-16 surrogate (2 bytes) is libxml2's 3-byte
            // sequence, which reads as 3 U+FFFD (9 bytes); a browser writes one U+FFFD.
            let bound = 9 * input.count / 2 + 16
            if let utf8 = CharsetDecoder.utf8(input[...], from: label) {
                require(String(validating: utf8, as: UTF8.self) != nil, "\(label) converts to invalid UTF-8")
                require(utf8.count <= bound, "\(label) converts \(input.count) bytes to \(utf8.count)")
            }
            let text = CharsetDecoder.decode(input[...], charset: label)
            require(text.utf8.count <= bound, "\(label) decodes \(input.count) bytes to \(text.utf8.count)")
            let attribute = CharsetDecoder.decodeAttribute(input[...], charset: label)
            require(attribute.utf8.count <= bound, "\(label) decodes an attribute of \(input.count) bytes to \(attribute.utf8.count)")
            require(!attribute.utf8.contains(0), "an attribute's text holds a NUL")
        }
    }

    static let htmlText = FuzzTarget(
        "html-text", dictionary: "html.dict",
        contract: """
            title, headings, names and body have HTML white space collapsed (no tab, line break, double or edge space), at most \
            3 bytes of UTF-8 a byte of the page; the body keeps to its limit (a byte that is no UTF-8 counted once, though read \
            as U+FFFD) and a smaller limit gives a prefix of it; the title scan is total and collapsed
            """
    ) { input in
        let text = HTMLText.extract(from: input, contentType: nil)
        let bound = 3 * input.count + 16
        for (field, value) in [("title", text.title), ("names", text.names), ("body", text.body)] + text.headings.map({ ("heading", $0) }) {
            checkCollapsed(value, field)
            require(value.utf8.count <= bound, "\(field) of \(value.utf8.count) bytes from a page of \(input.count)")
        }
        require(!text.headings.contains(where: \.isEmpty), "an empty heading")
        let limit = 64
        let short = HTMLText.extract(from: input, contentType: nil, limit: limit)
        require(short.title == text.title && short.headings == text.headings, "the body's limit changed the title or headings")
        // The limit counts the bytes collected: one that is no UTF-8 reads as U+FFFD, in 3 bytes.
        let replaced = short.body.unicodeScalars.count { $0 == "\u{FFFD}" }
        require(short.body.utf8.count - 2 * replaced <= limit, "a body of \(short.body.utf8.count) bytes for a limit of \(limit)")
        checkCollapsed(short.body, "short body")
        require(text.body.utf8.starts(with: short.body.utf8), "the shorter body is not a prefix of the whole")
        if let title = HTMLTitle.title(in: input, contentType: nil) {
            require(!title.isEmpty, "an empty title")
            checkCollapsed(title, "scanned title")
        }
    }

    static let sitemap = FuzzTarget(
        "sitemap", dictionary: "html.dict",
        contract: """
            every location is non-empty and trimmed, entities are not expanded (no more than 3 bytes a byte of the document), and a \
            lower limit gives the first locations of each list
            """
    ) { input in
        checkSitemap(input)
    }

    static let sitemapGzip = FuzzTarget(
        "sitemap-gzip", dictionary: "html.dict",
        contract: """
            gunzipping as the crawl does (decoder with a limit) never gives more than the limit: a stream that fits decodes \
            the same with its own size as the limit and fails at one byte less, one that does not fails with outputLimitExceeded \
            and is longer with a higher limit; feeding it in two pieces gives the same result; a gzip we write reads back; \
            the sitemap in it keeps its contract
            """
    ) { input in
        let limit = 1 << 16
        var gzip = input
        if !input.starts(with: [0x1F, 0x8B]) {
            // Plain bytes: gzipped here (fuzzed gzip rarely has a right CRC), so the success path is fuzzed too.
            gzip = (try? GzipEncoder.compress(input, level: Int32(input.first ?? 0) % 10)) ?? []
            let unpacked = Result { () throws(CompressionError) in try GzipDecoder.decompress(gzip) }
            require(unpacked == .success(input), "our gzip does not read back")
        }
        let whole = gunzip(gzip, limit: limit)
        switch whole {
        case .success(let output):
            require(output.count <= limit, "\(output.count) bytes out for a limit of \(limit)")
            require(gunzip(gzip, limit: output.count) == whole, "the stream's own size as the limit gives another result")
            if !output.isEmpty {
                require(
                    gunzip(gzip, limit: output.count - 1) == .failure(.outputLimitExceeded(limit: output.count - 1)),
                    "one byte under the stream's size does not stop at the limit")
            }
            checkSitemap(output)
        case .failure(.outputLimitExceeded(let reported)):
            require(reported == limit, "the error names a limit of \(reported), not \(limit)")
            if case .success(let longer) = gunzip(gzip, limit: 4 * limit) {
                require(longer.count > limit, "a stream over the limit decodes to \(longer.count) bytes with a higher one")
            }
        case .failure:
            break
        }
        let pieces = gunzip(gzip, limit: limit, splitAt: Int(input.last ?? 0) * gzip.count / 256)
        require(pieces == whole, "two pieces differ from one: \(pieces) \(whole)")
    }
}

// MARK: Checks

extension FuzzTargets {
    /// The page the `html-links` target rewrites, and where it is saved.
    private static let pageURL = "https://example.com/docs/guide/page.html"
    private static let pagePath = "example.com/docs/guide/page.html"

    /// Rewrites `input`'s references with a folder that saved every example.com URL (at its
    /// `PathMapper` path) and nothing else, and checks the rewrite against rewriting each
    /// reference alone.
    private static func checkRewrite(_ input: [UInt8], charset: String, references: [HTMLReference]) {
        let mapper = PathMapper()
        var saved: Set<String> = [pagePath]
        // Each URL's path, found once for the many rewrites of one input.
        var paths: [String: String?] = [:]
        func target(_ url: String) -> String? {
            if let known = paths[url] { return known }
            let path =
                url.hasPrefix("https://example.com/") || url.hasPrefix("http://example.com/")
                ? mapper.path(for: url, contentType: nil)?.string : nil
            paths[url] = path
            if let path { saved.insert(path) }
            return path
        }
        let rewriter = LinkRewriter()
        func rewrite(_ known: [HTMLReference]?) -> [UInt8] {
            rewriter.rewriteHTML(input, charset: charset, pageURL: pageURL, pagePath: pagePath, references: known, target: target)
        }
        let whole = rewrite(references)
        // What the rewriter finds by itself (no session ends looked for, no text) is what the crawl kept.
        require(rewrite(nil) == whole, "the rewrite with the crawl's references differs from the rewriter's own parse")
        guard CharsetSniffer.isASCIICompatible(charset) else { return require(whole == input, "a UTF-16 page changed") }

        // Each reference rewritten alone, in a document of its bytes (after those of the `<base href>`,
        // which links resolve against): what it becomes depends on its value, not on its place.
        let base = references.first { $0.role == .base }
        let baseBytes = base.map { Array(input[$0.range]) } ?? []
        let baseAlone = base.map { HTMLReference(range: 0..<baseBytes.count, value: $0.value, role: .base, inAttribute: true) }
        let newBase =
            baseAlone.map {
                rewriter.rewriteHTML(baseBytes, charset: charset, pageURL: pageURL, pagePath: pagePath, references: [$0], target: target)
            } ?? []
        func alone(_ reference: HTMLReference) -> [UInt8] {
            let moved = HTMLReference(
                range: baseBytes.count..<baseBytes.count + reference.range.count, value: reference.value, role: reference.role,
                inAttribute: reference.inAttribute, kind: reference.kind, source: reference.source)
            let output = rewriter.rewriteHTML(
                baseBytes + input[reference.range], charset: charset, pageURL: pageURL, pagePath: pagePath,
                references: baseAlone.map { [$0, moved] } ?? [moved], target: target)
            require(output.starts(with: newBase), "a reference alone changed its base")
            return Array(output[newBase.count...])
        }
        var expected: [UInt8] = []
        var position = 0
        for reference in references {
            let new = reference.role == .base ? newBase : alone(reference)
            expected += input[position..<reference.range.lowerBound] + new
            position = reference.range.upperBound
            checkNewValue(new, of: reference, in: input, saved: saved)
        }
        expected += input[position...]
        require(whole == expected, "the rewrite differs from its references rewritten one at a time, or changed other bytes")
    }

    /// A reference's new bytes: a relative path that stays in the folder and names a saved
    /// file, or an absolute http(s) URL; or the old bytes, when they are no relative reference
    /// (which would lead off from the page's file).
    private static func checkNewValue(_ new: [UInt8], of reference: HTMLReference, in input: [UInt8], saved: Set<String>) {
        let problem = problem(withNewValue: new, inAttribute: reference.inAttribute, saved: saved)
        guard new.elementsEqual(input[reference.range]) else {
            return require(problem == nil, "\(problem ?? ""): \(String(decoding: new, as: UTF8.self).debugDescription)")
        }
        guard problem != nil else { return }
        // As a browser reads it (the URL standard): controls and spaces gone from both ends, tabs
        // and line breaks from inside, `\` read as `/`.
        var written = Array(reference.value.utf8.drop { $0 <= 0x20 }.reversed().drop { $0 <= 0x20 }.reversed())
            .map { $0 == UInt8(ascii: "\\") ? UInt8(ascii: "/") : $0 }
        written.removeAll { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        let isRelative = !written.isEmpty && !written.starts(with: Array("//".utf8)) && schemeLength(written) == nil
        require(!isRelative, "relative reference \(reference.value.debugDescription) left as written")
    }

    /// What is wrong with `new` as a rewritten reference, or nil.
    private static func problem(withNewValue new: [UInt8], inAttribute: Bool, saved: Set<String>) -> String? {
        var value = new
        if inAttribute {
            // `&amp;` is how a new `&` is written in an attribute.
            var index = 0
            var unescaped: [UInt8] = []
            while index < value.count {
                if value[index...].starts(with: Array("&amp;".utf8)) {
                    unescaped.append(UInt8(ascii: "&"))
                    index += 5
                } else {
                    if value[index] == UInt8(ascii: "&") { return "a bare & in an attribute" }
                    unescaped.append(value[index])
                    index += 1
                }
            }
            value = unescaped
        }
        guard value.allSatisfy({ $0 > 0x20 && $0 < 0x7F && !"\"'()<>\\`".utf8.contains($0) }) else { return "a byte that needs quoting" }
        if let scheme = schemeLength(value) {
            let name = String(decoding: value[..<scheme], as: UTF8.self)
            let isAbsolute = (name == "http" || name == "https") && value[(scheme + 1)...].starts(with: Array("//".utf8))
            return isAbsolute ? nil : "not an absolute http(s) URL"
        }
        // A relative path: resolved from the page's folder, it stays inside and names a file saved.
        let path = value.prefix { $0 != UInt8(ascii: "#") }
        guard !path.isEmpty, !path.starts(with: [UInt8(ascii: "/")]) else { return "no relative path" }
        var folders = pagePath.split(separator: "/").dropLast().map(String.init)
        var file = ""
        let segments = path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        for (index, segment) in segments.enumerated() {
            let name = String(decoding: PercentEncoding.decode(bytes: Array(segment)), as: UTF8.self)
            guard !name.isEmpty, name != "." else { return "an empty or '.' segment" }
            if name == ".." {
                guard !folders.isEmpty else { return "a path that climbs out of the folder" }
                folders.removeLast()
            } else if index == segments.count - 1 {
                file = name
            } else {
                folders.append(name)
            }
        }
        let resolved = (folders + [file]).joined(separator: "/")
        return !file.isEmpty && saved.contains(resolved) ? nil : "a path to \(resolved), no saved file"
    }

    /// The length of the scheme `bytes` start with (letters, digits, `+`, `-`, `.` before a `:`), or nil.
    private static func schemeLength(_ bytes: [UInt8]) -> Int? {
        URLParts.scheme(of: String(decoding: bytes, as: UTF8.self))?.utf8.count
    }

    /// CSS escapes decoded as the extractor promises, read over the scalars of the bytes (the
    /// extractor works on bytes): `\` and 1–6 hex digits and one optional white space (CR LF
    /// counting as one), zero, surrogates and values past U+10FFFF giving U+FFFD; `\` and a
    /// line break, nothing; `\` and any other character, that character; a `\` at the end, itself.
    private static func cssUnescaped(_ bytes: ArraySlice<UInt8>) -> String {
        let scalars = Array(String(decoding: bytes, as: UTF8.self).unicodeScalars)
        var output = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            guard scalar == "\\", index < scalars.count else {
                output.append(scalar)
                continue
            }
            var value: UInt32 = 0
            var digits = 0
            while digits < 6, index < scalars.count, let digit = scalars[index].isASCII ? Character(scalars[index]).hexDigitValue : nil {
                value = min(value << 4 | UInt32(digit), 0x7FFF_FFFF)
                digits += 1
                index += 1
            }
            if digits == 0 {
                let escaped = scalars[index]
                index += 1
                if escaped == "\r", index < scalars.count, scalars[index] == "\n" { index += 1 }
                if escaped != "\n" && escaped != "\r" && escaped != "\u{0C}" { output.append(escaped) }
                continue
            }
            if index < scalars.count, [" ", "\t", "\n", "\r", "\u{0C}"].contains(scalars[index]) {
                if scalars[index] == "\r", index + 1 < scalars.count, scalars[index + 1] == "\n" { index += 1 }
                index += 1
            }
            output.append(value == 0 ? "\u{FFFD}" : Unicode.Scalar(value) ?? "\u{FFFD}")
        }
        return String(output)
    }

    /// `value` with every scalar but ASCII letters and digits (and NUL, which has no escape)
    /// written as a hex escape.
    private static func cssEscaped(_ value: String) -> String {
        var output = ""
        for scalar in value.unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "\u{0}" {
                output.unicodeScalars.append(scalar)
            } else {
                output += "\\" + String(scalar.value, radix: 16) + " "
            }
        }
        return output
    }

    /// The charsets the `charset` target decodes with besides the sniffed ones.
    private static let namedCharsets = [
        "utf-8", "windows-1252", "iso-8859-2", "koi8-r", "shift_jis", "euc-jp", "iso-2022-jp", "gb18030", "big5", "big5-hkscs",
        "euc-kr", "utf-16le", "utf-16be", "utf-16", "utf-32", "utf-7", "ucs-2", "tcvn", "cp1258", "x-unknown",
    ]

    /// A sniffed label is lower-cased and trimmed, and is sniffed again from a Content-Type
    /// naming it (when a parameter can hold it: no `;` nor `"`).
    private static func checkLabel(_ label: String) {
        require(!label.isEmpty, "an empty charset label")
        require(label == label.lowercased(), "label '\(label)' is not lower-cased")
        require(
            !isEncodingWhitespace(label.unicodeScalars.first!) && !isEncodingWhitespace(label.unicodeScalars.last!),
            "label \(label.debugDescription) has white space at an edge")
        guard !label.unicodeScalars.contains(";"), !label.unicodeScalars.contains("\"") else { return }
        let again = CharsetSniffer.charset(contentType: "text/html; charset=\(label)", prefix: [])
        require(again == label, "label \(label.debugDescription) is sniffed again as \(again.debugDescription)")
    }

    /// The Encoding standard's white space around a label (tab, LF, FF, CR, space).
    private static func isEncodingWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        [0x09, 0x0A, 0x0C, 0x0D, 0x20].contains(scalar.value)
    }

    /// Whether `text` has HTML's white space collapsed: no tab, line break or form feed, no two
    /// spaces in a row, none at either end.
    private static func checkCollapsed(_ text: String, _ field: String) {
        let bytes = Array(text.utf8)
        require(!bytes.contains { $0 == 0x09 || $0 == 0x0A || $0 == 0x0C || $0 == 0x0D }, "\(field) holds a tab or line break")
        require(bytes.first != 0x20 && bytes.last != 0x20, "\(field) has a space at an edge")
        require(!zip(bytes, bytes.dropFirst()).contains { $0 == 0x20 && $1 == 0x20 }, "\(field) holds two spaces in a row")
    }

    /// The sitemap contract of `checkSitemap`'s caller.
    private static func checkSitemap(_ bytes: [UInt8]) {
        let entries = SitemapParser.entries(in: bytes)
        let locations = entries.pages + entries.sitemaps
        for location in locations {
            require(!location.isEmpty, "an empty location")
            require(!location.first!.isWhitespace && !location.last!.isWhitespace, "location \(location.debugDescription) is not trimmed")
        }
        let size = locations.reduce(0) { $0 + $1.utf8.count }
        require(size <= 3 * bytes.count + 16, "\(size) bytes of locations from a document of \(bytes.count)")
        let limit = 3
        let limited = SitemapParser.entries(in: bytes, limit: limit)
        require(limited.pages.count + limited.sitemaps.count == min(limit, locations.count), "the limit kept another count")
        require(
            entries.pages.starts(with: limited.pages) && entries.sitemaps.starts(with: limited.sitemaps), "the limit kept other locations")
    }

    /// `gzip` decompressed as the crawl does with `limit`, fed whole or in two pieces.
    private static func gunzip(_ gzip: [UInt8], limit: Int, splitAt split: Int? = nil) -> Result<[UInt8], CompressionError> {
        guard let split else { return Result { () throws(CompressionError) in try GzipDecoder.decompress(gzip, limit: limit) } }
        return Result { () throws(CompressionError) in
            let decoder = try GzipDecoder(limit: limit)
            var output: [UInt8] = []
            try decoder.decompress(Array(gzip[..<split]), into: &output)
            try decoder.decompress(Array(gzip[split...]), into: &output)
            try decoder.finish()
            return output
        }
    }
}
