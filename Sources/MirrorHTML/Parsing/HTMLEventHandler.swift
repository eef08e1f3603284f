/// Receives the start tags libxml2's HTML parser finds (through `HTMLSAXParser`), in document
/// order, as bytes that are valid only during each call — no String is made for what nobody
/// reads. Element and attribute names are lower-cased. End tags and text (UTF-8) are reported
/// only to a handler that asks for them (`wantsText`): the link locator does while it reads the
/// page's text for the search index (it reads `<style>` text from the original bytes), and
/// otherwise only inside an `a` whose text it reads (`LogoutWords`).
protocol HTMLEventHandler: AnyObject {
    func startElement(_ name: UnsafeBufferPointer<UInt8>, attributes: UnsafeBufferPointer<HTMLAttributeBytes>)
    /// Whether `endElement` and `characters` are called: a callback per text run costs a parse.
    /// It may change: the parser reads it again after each event it reports, and reports end
    /// tags and text, or stops, from the next event on.
    var wantsText: Bool { get }
    /// Whether `wantsText` is true from the parse's start to its end: then the parser does not
    /// read it after each event (a reader of the whole page's text hears a million of them on
    /// a large site).
    var wantsTextThroughout: Bool { get }
    func endElement(_ name: UnsafeBufferPointer<UInt8>)
    func characters(_ text: UnsafeBufferPointer<UInt8>)
}

extension HTMLEventHandler {
    var wantsText: Bool { false }
    var wantsTextThroughout: Bool { false }
    func endElement(_ name: UnsafeBufferPointer<UInt8>) {}
    func characters(_ text: UnsafeBufferPointer<UInt8>) {}
}
