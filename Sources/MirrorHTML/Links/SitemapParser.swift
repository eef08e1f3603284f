internal import CLibXML2

/// Reads sitemaps (sitemaps.org protocol) with libxml2's XML push parser: the `<loc>` of every
/// `<url>` (pages) and of every `<sitemap>` (nested sitemaps, in a sitemap index).
/// Entities are not expanded and nothing is loaded from the network.
public final class SitemapParser {
    /// What one sitemap document lists.
    public struct Entries: Sendable, Equatable {
        public var pages: [String] = []
        public var sitemaps: [String] = []

        public init(pages: [String] = [], sitemaps: [String] = []) {
            self.pages = pages
            self.sitemaps = sitemaps
        }
    }

    private var context: xmlParserCtxtPtr?
    private var entries = Entries()
    private var inLoc = false
    private var parent = ""
    private var text: [UInt8] = []
    /// Stop collecting after this many locations (a hostile sitemap may list millions).
    private let limit: Int

    public init(limit: Int = 50_000) {
        self.limit = limit
        HTMLSAXParser.initializeLibrary()
        var handler = xmlSAXHandler()
        handler.initialized = XML_SAX2_MAGIC
        handler.startElementNs = { userData, localName, _, _, _, _, _, _, _ in
            guard let parser = SitemapParser.from(userData), let localName else { return }
            parser.start(String(cString: localName))
        }
        handler.endElementNs = { userData, localName, _, _ in
            guard let parser = SitemapParser.from(userData), let localName else { return }
            parser.end(String(cString: localName))
        }
        handler.characters = { userData, bytes, length in
            guard let parser = SitemapParser.from(userData), parser.inLoc, let bytes, length > 0 else { return }
            parser.text.append(contentsOf: UnsafeBufferPointer(start: bytes, count: Int(length)))
        }
        handler.serror = { _, _ in }
        let userData = Unmanaged.passUnretained(self).toOpaque()
        context = xmlCreatePushParserCtxt(&handler, userData, nil, 0, nil)
        if let context {
            let options =
                XML_PARSE_RECOVER.rawValue | XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue
                | XML_PARSE_NOWARNING.rawValue | XML_PARSE_NOCDATA.rawValue
            xmlCtxtUseOptions(context, Int32(options))
        }
    }

    deinit {
        if let context {
            if let document = context.pointee.myDoc { xmlFreeDoc(document) }
            xmlFreeParserCtxt(context)
        }
    }

    public func feed(_ bytes: [UInt8]) {
        guard let context else { return }
        var offset = 0
        while offset < bytes.count {
            let count = min(1 << 20, bytes.count - offset)
            bytes[offset..<offset + count].withUnsafeBytes { buffer in
                _ = xmlParseChunk(context, buffer.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(count), 0)
            }
            offset += count
        }
    }

    public func finish() -> Entries {
        if let context { xmlParseChunk(context, nil, 0, 1) }
        return entries
    }

    /// Parses a whole sitemap document.
    public static func entries(in bytes: [UInt8], limit: Int = 50_000) -> Entries {
        let parser = SitemapParser(limit: limit)
        parser.feed(bytes)
        return parser.finish()
    }

    private func start(_ name: String) {
        if name == "url" || name == "sitemap" { parent = name }
        if name == "loc" {
            inLoc = true
            text.removeAll(keepingCapacity: true)
        }
    }

    private func end(_ name: String) {
        guard name == "loc", inLoc else { return }
        inLoc = false
        let location = String(decoding: text, as: UTF8.self).trimmingCharacters()
        guard !location.isEmpty, entries.pages.count + entries.sitemaps.count < limit else { return }
        if parent == "sitemap" { entries.sitemaps.append(location) } else { entries.pages.append(location) }
    }

    private static func from(_ userData: UnsafeMutableRawPointer?) -> SitemapParser? {
        userData.map { Unmanaged<SitemapParser>.fromOpaque($0).takeUnretainedValue() }
    }
}

private extension String {
    func trimmingCharacters() -> String {
        var slice = self[...]
        while let first = slice.first, first.isWhitespace { slice = slice.dropFirst() }
        while let last = slice.last, last.isWhitespace { slice = slice.dropLast() }
        return String(slice)
    }
}
