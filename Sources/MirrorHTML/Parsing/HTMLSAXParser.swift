internal import CLibXML2

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// libxml2's HTML parser in SAX mode over a whole document: the handler hears each start tag
/// (names lower-cased by libxml2) as bytes, so no String is made for what nobody reads. Broken
/// markup is recovered from, never reported as a failure. Parses on different threads may run
/// at once.
///
/// Whole documents rather than libxml2's push parser fed chunk by chunk, for three measured
/// reasons (libxml2 2.9.14, the 530 pages of python3.11-doc): the same SAX parse over a memory
/// buffer reads 58 MB/s against 34–48 MB/s pushed; pushed in 512- or 2048-byte chunks it
/// reports a few hundred fewer start tags than whole (tags cut by a chunk boundary are lost);
/// and pushed, it stops at `</html>` and drops what follows, where browsers (and this parser)
/// go on. The crawler holds whole bodies anyway: they come from the cache.
enum HTMLSAXParser {
    /// Parses `document` in `charset`, reporting to `handler`.
    /// - Parameter charset: the document's encoding, e.g. "iso-8859-1". The caller decides it
    ///   (HTTP header, BOM, `<meta charset>`; see `CharsetSniffer`), and libxml2 is told to keep
    ///   to it: its own guess would be ISO-8859-1, which garbles UTF-8 URLs. Unknown: UTF-8.
    static func parse<Handler: HTMLEventHandler>(_ document: UnsafeBufferPointer<UInt8>, charset: String, handler: Handler) {
        _ = initialized
        guard let start = document.baseAddress, document.count > 0, document.count <= Int(Int32.max) else { return }
        let session: Session = HandlerSession(handler: handler)
        var sax = saxHandler()
        setText(handler.wantsText ? .reported : .absent, in: &sax)
        session.hearsText = handler.wantsText
        session.hearsTextThroughout = handler.wantsTextThroughout
        start.withMemoryRebound(to: CChar.self, capacity: document.count) { bytes in
            guard let context = htmlCreateMemoryParserCtxt(bytes, Int32(document.count)) else { return }
            defer { htmlFreeParserCtxt(context) }
            htmlCtxtUseOptions(context, Int32(options))
            if let encoder = xmlFindCharEncodingHandler(charset) ?? xmlFindCharEncodingHandler("utf-8") {
                xmlSwitchToEncoding(context, encoder)
            }
            withUnsafeMutablePointer(to: &sax) { sax in
                // As libxml2's own htmlSAXParseDoc does: our handler table for this parse only.
                let ownTable = context.pointee.sax
                context.pointee.sax = sax
                context.pointee.userData = Unmanaged.passUnretained(session).toOpaque()
                session.sax = sax
                _ = htmlParseDocument(context)
                session.sax = nil
                context.pointee.sax = ownTable
                context.pointee.userData = nil
            }
            if let tree = context.pointee.myDoc {
                xmlFreeDoc(tree)
                context.pointee.myDoc = nil
            }
        }
        withExtendedLifetime(session) {}
    }

    /// Parses `document` in `charset`, reporting to `handler`.
    static func parse<Handler: HTMLEventHandler>(_ document: [UInt8], charset: String, handler: Handler) {
        document.withUnsafeBufferPointer { parse($0, charset: charset, handler: handler) }
    }

    /// Whether libxml2 can decode `charset` (its built-in tables or iconv).
    static func supportsEncoding(_ charset: String) -> Bool {
        _ = initialized
        guard let handler = xmlFindCharEncodingHandler(charset) else { return false }
        xmlCharEncCloseFunc(handler)
        return true
    }

    /// Recovering, silent, and never touching the network; the caller's charset wins over
    /// `<meta charset>` (`CharsetSniffer` has read it already).
    private static let options =
        HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue
        | HTML_PARSE_NOWARNING.rawValue | HTML_PARSE_NONET.rawValue | HTML_PARSE_IGNORE_ENC.rawValue

    /// What one parse needs in libxml2's callbacks, passed as its `userData`; `HandlerSession`
    /// reports to the handler. Touched by every callback of one parse, on its thread only: the
    /// runtime's exclusivity checks are left out. The attributes of a start tag go to the handler
    /// in storage of the session's own, reused for every tag, so that no reference is counted
    /// per tag (an array read from the session was retained and released for each call).
    private class Session {
        /// The attributes of the start tag being reported: the first `attributeCount`.
        @exclusivity(unchecked) private var attributes = UnsafeMutableBufferPointer<HTMLAttributeBytes>.allocate(capacity: 16)
        @exclusivity(unchecked) private var attributeCount = 0
        /// The handler table libxml2 calls during the parse, and whether its text callbacks
        /// (end tags, text) are set.
        @exclusivity(unchecked) var sax: UnsafeMutablePointer<htmlSAXHandler>?
        @exclusivity(unchecked) var hearsText = false
        /// Whether the handler wants text throughout (`wantsTextThroughout`): then its
        /// `wantsText` is not read after each event.
        @exclusivity(unchecked) var hearsTextThroughout = false

        deinit { attributes.deallocate() }

        /// Runs `body` with the session of `userData`, with no reference counting: the
        /// session outlives the parse (`withExtendedLifetime` in `parse`).
        static func with(_ userData: UnsafeMutableRawPointer?, _ body: (Session) -> Void) {
            guard let userData else { return }
            Unmanaged<Session>.fromOpaque(userData)._withUnsafeGuaranteedRef(body)
        }

        /// Reports a start tag with the attributes libxml2 passes (name, value, name, value, …,
        /// nil; no value for an attribute written without one).
        final func startElement(_ name: UnsafePointer<xmlChar>, _ pairs: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) {
            attributeCount = 0
            if let pairs {
                var index = 0
                while let name = pairs[index] {
                    if attributeCount == attributes.count {
                        let larger = UnsafeMutableBufferPointer<HTMLAttributeBytes>.allocate(capacity: attributes.count * 2)
                        _ = larger.initialize(fromContentsOf: attributes)
                        attributes.deallocate()
                        attributes = larger
                    }
                    let value = pairs[index + 1].map(HTMLSAXParser.bytes) ?? UnsafeBufferPointer(start: name, count: 0)
                    attributes.initializeElement(at: attributeCount, to: HTMLAttributeBytes(name: HTMLSAXParser.bytes(name), value: value))
                    attributeCount += 1
                    index += 2
                }
            }
            report(startElement: HTMLSAXParser.bytes(name), attributes: UnsafeBufferPointer(rebasing: attributes[..<attributeCount]))
            followWantsText()
        }

        /// Sets or silences the text callbacks when the handler's `wantsText` changed: libxml2
        /// looks a callback up in the table each time it has something to report. Never to nil
        /// mid-parse: libxml2 may check a callback once and call it twice (an unknown entity is
        /// reported as `&`, then its name), and a callback set to nil by the first call makes the
        /// second a call to address zero.
        final func followWantsText() {
            guard !hearsTextThroughout else { return }
            let wants = wantsText
            guard wants != hearsText, let sax else { return }
            HTMLSAXParser.setText(wants ? .reported : .silenced, in: &sax.pointee)
            hearsText = wants
        }

        // The handler's side, in `HandlerSession`.
        var wantsText: Bool { false }
        func report(startElement name: UnsafeBufferPointer<UInt8>, attributes: UnsafeBufferPointer<HTMLAttributeBytes>) {}
        func report(endElement name: UnsafeBufferPointer<UInt8>) {}
        func report(characters text: UnsafeBufferPointer<UInt8>) {}
    }

    /// A session reporting to a handler of a known type, through an unmanaged reference: the
    /// handler is a parameter of `parse`, alive throughout, and is called without reference
    /// counting (an existential read from the session was retained and released for each call).
    private final class HandlerSession<Handler: HTMLEventHandler>: Session {
        private let handler: Unmanaged<Handler>

        init(handler: Handler) {
            self.handler = Unmanaged.passUnretained(handler)
        }

        override var wantsText: Bool { handler._withUnsafeGuaranteedRef { $0.wantsText } }

        override func report(startElement name: UnsafeBufferPointer<UInt8>, attributes: UnsafeBufferPointer<HTMLAttributeBytes>) {
            handler._withUnsafeGuaranteedRef { $0.startElement(name, attributes: attributes) }
        }

        override func report(endElement name: UnsafeBufferPointer<UInt8>) {
            handler._withUnsafeGuaranteedRef { $0.endElement(name) }
        }

        override func report(characters text: UnsafeBufferPointer<UInt8>) {
            handler._withUnsafeGuaranteedRef { $0.characters(text) }
        }
    }

    /// The SAX callbacks: start tags (end tags and text runs are `setText`'s); errors silenced
    /// (it recovers).
    private static func saxHandler() -> htmlSAXHandler {
        var sax = htmlSAXHandler()
        // Without the SAX2 magic, libxml2 does not take `serror` from this table.
        sax.initialized = XML_SAX2_MAGIC
        sax.startElement = { userData, name, attributes in
            guard let name else { return }
            Session.with(userData) { $0.startElement(name, attributes) }
        }
        sax.serror = { _, _ in }
        return sax
    }

    /// How end tags and text runs reach the handler.
    private enum TextCallbacks {
        /// No callbacks: libxml2 reports nothing (set before a parse only).
        case absent
        /// Callbacks that do nothing (set during a parse, where nil is unsafe; see `followWantsText`).
        case silenced
        /// Callbacks that report to the handler.
        case reported
    }

    /// Sets the callbacks of end tags and text runs in `sax`. libxml2 reports the text of
    /// `<script>` and `<style>` as CDATA blocks: they go where other text goes.
    private static func setText(_ callbacks: TextCallbacks, in sax: inout htmlSAXHandler) {
        switch callbacks {
        case .absent:
            sax.endElement = nil
            sax.characters = nil
        case .silenced:
            sax.endElement = { _, _ in }
            sax.characters = { _, _, _ in }
        case .reported:
            sax.endElement = { userData, name in
                guard let name else { return }
                Session.with(userData) { session in
                    session.report(endElement: HTMLSAXParser.bytes(name))
                    session.followWantsText()
                }
            }
            sax.characters = { userData, characters, length in
                guard let characters, length > 0 else { return }
                Session.with(userData) { session in
                    session.report(characters: UnsafeBufferPointer(start: characters, count: Int(length)))
                    session.followWantsText()
                }
            }
        }
        sax.cdataBlock = sax.characters
    }

    /// A NUL-terminated string of libxml2 as a buffer.
    private static func bytes(_ string: UnsafePointer<xmlChar>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: string, count: strlen(UnsafeRawPointer(string).assumingMemoryBound(to: CChar.self)))
    }

    /// libxml2 wants one global initialization before parsers are used from several threads.
    /// Its errors outside a parser (a charset conversion failing) would go to stderr: they are
    /// silenced, here and in every thread that uses libxml2 later; callers see the failure.
    private static let initialized: Void = {
        xmlInitParser()
        let silent: xmlStructuredErrorFunc = { _, _ in }
        xmlThrDefSetStructuredErrorFunc(nil, silent)
        xmlSetStructuredErrorFunc(nil, silent)
    }()

    /// Runs libxml2's one-time global initialization (for the other parsers of this module too).
    static func initializeLibrary() { _ = initialized }
}
