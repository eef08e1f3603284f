internal import CLibXML2

/// A streaming HTML parser on libxml2's HTML push parser (SAX mode).
///
/// Feed the document in chunks as it arrives; the delegate hears about each
/// start tag (names lower-cased by libxml2), end tag and text run. Broken
/// markup is recovered from, never reported as a failure. Separate parser
/// instances may run on different threads at once; one instance may not.
public final class HTMLSAXParser {
    /// Receives parse events in document order.
    public protocol Delegate: AnyObject {
        func parser(_ parser: HTMLSAXParser, didStart element: String, attributes: [HTMLAttribute])
        func parser(_ parser: HTMLSAXParser, didEnd element: String)
        func parser(_ parser: HTMLSAXParser, foundText text: String)
    }

    private var context: htmlParserCtxtPtr?
    /// libxml2's push parser stops at the end tag of the root element and drops the rest, where
    /// browsers keep parsing (scripts and links after `</html>` are common). So `</html` end tags
    /// are renamed before libxml2 sees them — same length, so byte offsets still hold — and a
    /// possible start of one at the end of a chunk waits here for the next chunk.
    private var heldBack: [UInt8] = []
    /// The chunk being fed, with held-back bytes in front; kept to reuse its storage.
    private var input: [UInt8] = []
    private weak var handler: HTMLEventHandler?
    /// The handler, held strongly while libxml2 runs, so that callbacks skip the weak load.
    private var activeHandler: HTMLEventHandler?
    /// Keeps a `Delegate`'s adapter alive (the adapter holds the delegate weakly).
    private var adapter: DelegateAdapter?
    /// The attributes of the start tag being reported; kept to reuse its storage.
    private var attributes: [HTMLAttributeBytes] = []
    /// Whether text runs are reported to the delegate. A delegate that needs text only inside
    /// some elements (e.g. `<style>`) turns it on and off from its callbacks, sparing a String
    /// per text run.
    public var reportsText = true

    /// - Parameters:
    ///   - charset: the document's encoding, e.g. "iso-8859-1". The caller decides it (HTTP header,
    ///     BOM, `<meta charset>`); libxml2's own guess would be ISO-8859-1, which garbles UTF-8 URLs.
    public convenience init(delegate: Delegate, charset: String = "utf-8") {
        let adapter = DelegateAdapter(delegate: delegate)
        self.init(handler: adapter, charset: charset)
        self.adapter = adapter
        adapter.parser = self
    }

    init(handler: HTMLEventHandler, charset: String) {
        _ = Self.initialized
        self.handler = handler
        var sax = htmlSAXHandler()
        sax.initialized = XML_SAX2_MAGIC
        sax.startElement = { userData, name, attributes in
            guard let parser = HTMLSAXParser.from(userData), let handler = parser.activeHandler, let name else { return }
            parser.attributes.removeAll(keepingCapacity: true)
            if let attributes {
                var index = 0
                while let name = attributes[index] {
                    // libxml2 passes no value for an attribute written without one.
                    let value = attributes[index + 1].map(HTMLSAXParser.bytes) ?? UnsafeBufferPointer(start: name, count: 0)
                    parser.attributes.append(HTMLAttributeBytes(name: HTMLSAXParser.bytes(name), value: value))
                    index += 2
                }
            }
            handler.startElement(HTMLSAXParser.bytes(name), attributes: parser.attributes)
        }
        sax.endElement = { userData, name in
            guard let parser = HTMLSAXParser.from(userData), let name else { return }
            parser.activeHandler?.endElement(HTMLSAXParser.bytes(name))
        }
        let text: charactersSAXFunc = { userData, bytes, length in
            guard let parser = HTMLSAXParser.from(userData), let handler = parser.activeHandler, handler.wantsText,
                let bytes, length > 0
            else { return }
            handler.characters(UnsafeBufferPointer(start: bytes, count: Int(length)))
        }
        sax.characters = text
        sax.cdataBlock = text
        // Silence libxml2's own error printing; the parser recovers.
        sax.serror = { _, _ in }
        sax.error = nil
        sax.warning = nil

        let userData = Unmanaged.passUnretained(self).toOpaque()
        context = htmlCreatePushParserCtxt(&sax, userData, nil, 0, nil, XML_CHAR_ENCODING_NONE)
        if let context {
            let options = HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue
                | HTML_PARSE_NOWARNING.rawValue | HTML_PARSE_NONET.rawValue
            htmlCtxtUseOptions(context, Int32(options))
            if let encoder = xmlFindCharEncodingHandler(charset) ?? xmlFindCharEncodingHandler("utf-8") {
                xmlSwitchToEncoding(context, encoder)
            }
        }
    }

    deinit {
        if let context {
            if let document = context.pointee.myDoc { xmlFreeDoc(document) }
            htmlFreeParserCtxt(context)
        }
    }

    /// Parses the next chunk of the document.
    public func feed(_ bytes: UnsafeRawBufferPointer) {
        guard context != nil else { return }
        input.removeAll(keepingCapacity: true)
        input.append(contentsOf: heldBack)
        input.append(contentsOf: bytes)
        let ready = Self.hideRootEndTags(in: &input)
        heldBack.removeAll(keepingCapacity: true)
        heldBack.append(contentsOf: input[ready...])
        input.withUnsafeBytes { parse(UnsafeRawBufferPointer(rebasing: $0.prefix(ready))) }
    }

    /// Parses the next chunk of the document.
    public func feed(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { feed($0) }
    }

    /// Signals the end of the document, flushing any held-back events.
    public func finish() {
        guard let context else { return }
        heldBack.withUnsafeBytes { parse($0) }
        heldBack.removeAll()
        activeHandler = handler
        defer { activeHandler = nil }
        htmlParseChunk(context, nil, 0, 1)
    }

    private func parse(_ bytes: UnsafeRawBufferPointer) {
        guard let context else { return }
        activeHandler = handler
        defer { activeHandler = nil }
        var remaining = bytes
        // htmlParseChunk takes an Int32 length: feed large buffers in slices.
        while !remaining.isEmpty {
            let slice = UnsafeRawBufferPointer(rebasing: remaining.prefix(1 << 20))
            slice.withMemoryRebound(to: CChar.self) { chars in
                _ = htmlParseChunk(context, chars.baseAddress, Int32(chars.count), 0)
            }
            remaining = UnsafeRawBufferPointer(rebasing: remaining.dropFirst(slice.count))
        }
    }

    /// Renames each `</html` end tag in `bytes` to `</htmx`, and returns how many bytes may be
    /// parsed now: a possible start of such a tag at the end is held back for the next chunk.
    static func hideRootEndTags(in bytes: inout [UInt8]) -> Int {
        let tag: [UInt8] = Array("</html".utf8)
        return bytes.withUnsafeMutableBufferPointer { buffer in
            var index = 0
            while index < buffer.count {
                guard buffer[index] == UInt8(ascii: "<") else {
                    index += 1
                    continue
                }
                var matched = 1
                while matched < tag.count, index + matched < buffer.count,
                    buffer[index + matched] | (matched >= 2 ? 0x20 : 0) == tag[matched]
                {
                    matched += 1
                }
                let end = index + matched
                if end == buffer.count { return index }  // "</ht" at the end: wait for more
                if matched == tag.count, [0x20, 0x09, 0x0A, 0x0C, 0x0D, UInt8(ascii: ">"), UInt8(ascii: "/")].contains(buffer[end]) {
                    buffer[end - 1] = UInt8(ascii: "x")
                }
                index += 1
            }
            return buffer.count
        }
    }

    /// Parses a whole document at once.
    public static func parse(_ bytes: [UInt8], charset: String = "utf-8", delegate: Delegate) {
        let parser = HTMLSAXParser(delegate: delegate, charset: charset)
        parser.feed(bytes)
        parser.finish()
    }

    /// Whether libxml2 can decode `charset` (its built-in tables or iconv).
    public static func supportsEncoding(_ charset: String) -> Bool {
        _ = initialized
        guard let handler = xmlFindCharEncodingHandler(charset) else { return false }
        xmlCharEncCloseFunc(handler)
        return true
    }

    private static func from(_ userData: UnsafeMutableRawPointer?) -> HTMLSAXParser? {
        userData.map { Unmanaged<HTMLSAXParser>.fromOpaque($0).takeUnretainedValue() }
    }

    /// A NUL-terminated string of libxml2 as a buffer.
    private static func bytes(_ string: UnsafePointer<xmlChar>) -> UnsafeBufferPointer<UInt8> {
        var length = 0
        while string[length] != 0 { length += 1 }
        return UnsafeBufferPointer(start: string, count: length)
    }

    /// libxml2 wants one global initialization before parsers are used from several threads.
    private static let initialized: Void = xmlInitParser()

    /// Runs libxml2's one-time global initialization (for the other parsers of this module too).
    static func initializeLibrary() { _ = initialized }
}

/// Passes the events of a parser to a `HTMLSAXParser.Delegate` as Strings.
private final class DelegateAdapter: HTMLEventHandler {
    private weak var delegate: HTMLSAXParser.Delegate?
    weak var parser: HTMLSAXParser?

    init(delegate: HTMLSAXParser.Delegate) {
        self.delegate = delegate
    }

    func startElement(_ name: UnsafeBufferPointer<UInt8>, attributes: [HTMLAttributeBytes]) {
        guard let parser else { return }
        let attributes = attributes.map { HTMLAttribute(name: $0.name.string, value: $0.value.string) }
        delegate?.parser(parser, didStart: name.string, attributes: attributes)
    }

    func endElement(_ name: UnsafeBufferPointer<UInt8>) {
        guard let parser else { return }
        delegate?.parser(parser, didEnd: name.string)
    }

    func characters(_ text: UnsafeBufferPointer<UInt8>) {
        guard let parser else { return }
        delegate?.parser(parser, foundText: text.string)
    }

    var wantsText: Bool { parser?.reportsText ?? false }
}
